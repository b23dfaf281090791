# tpf: target=t4
"""bert-base-uncased sequence classification with AdamW and fp16 AMP: the published T4 calibration point."""
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import BertForSequenceClassification

BATCH_SIZE = 4
SEQ_LEN = 128

# The published peak was measured with eager attention (no SDPA then).
model = BertForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2, attn_implementation="eager").cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
scaler = torch.cuda.amp.GradScaler()
data = TensorDataset(torch.randint(0, 30522, (256, SEQ_LEN)), torch.randint(0, 2, (256,)))
loader = DataLoader(data, batch_size=BATCH_SIZE, shuffle=True)

model.train()
for ids, labels in loader:
    ids, labels = ids.cuda(), labels.cuda()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(input_ids=ids, labels=labels).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
