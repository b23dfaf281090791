# case: a 7B full fine-tune but no --target: there is nothing to compare with
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoModelForCausalLM

torch.manual_seed(0)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
loader = DataLoader(TensorDataset(torch.randint(0, 32000, (64, 2048))), batch_size=8,
                    num_workers=4, pin_memory=True)
for (ids,) in loader:
    ids = ids.cuda()
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
