# tpf: target=t4
# case: gpt2-large in fp32 with AdamW, batch 8 x 1024 tokens, on a 16 GB T4, in a train() helper
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import GPT2LMHeadModel

BATCH = 8
CONTEXT = 1024


def train(model, loader, opt, device):
    model.train()
    for step, (ids,) in enumerate(loader):
        ids = ids.to(device, non_blocking=True)
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()  # expect: TPF013
        opt.step()
        opt.zero_grad()
        if step % 100 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    torch.manual_seed(1234)
    device = torch.device("cuda")
    net = GPT2LMHeadModel.from_pretrained("gpt2-large").to(device)
    adam = torch.optim.AdamW(net.parameters(), lr=1e-4)
    data = TensorDataset(torch.randint(0, 50257, (512, CONTEXT)))
    train(net, DataLoader(data, batch_size=BATCH, shuffle=True, num_workers=2, pin_memory=True), adam, device)
