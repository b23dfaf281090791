# TPF002: evaluation passes whose forward goes through a part of the model
# (`model.network(...)`, `model.module(...)`) or whose batch passes through a
# helper of the file first. Written as a DeepSpeed-style pretraining script.
import argparse

import deepspeed
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm


def to_device(batch, device):
    return [t.to(device) for t in batch]


# case: the engine's network is called; the batch is moved in a generator
def pretrain_validation(args, model, data_batches):
    model.eval()
    eval_loss = 0.0
    for batch in tqdm(data_batches):
        batch = tuple(t.to(args.device) for t in batch)
        tmp_eval_loss = model.network(batch, log=False)  # expect: TPF002
        eval_loss += tmp_eval_loss.mean().item()
    return eval_loss


def train(args, model, data_batches):
    model.train()
    for batch in data_batches:
        batch = tuple(t.to(args.device) for t in batch)
        loss = model.network(batch)
        model.network.backward(loss)
        model.network.step()


# case: the module inside a DistributedDataParallel wrapper
def score(ddp_model, loader):
    ddp_model.eval()
    hits = 0
    for images, labels in loader:
        hits += (ddp_model.module(images).argmax(1) == labels).sum().item()  # expect: TPF002
    return hits


# case: the batch goes through a helper of the file before the forward
def evaluate(net, loader, device):
    net.eval()
    total = 0.0
    for raw in loader:
        x, y = to_device(raw, device)
        total += nn.functional.mse_loss(net(x), y).item()  # expect: TPF002
    return total


# case: a part this function also reads attributes of
def probe(model, loader):
    model.eval()
    dim = model.backbone.num_features
    n = 0
    for x in loader:
        feats = model.backbone(x)  # expect: TPF002
        n += int(feats.shape[-1] == dim)
    return n


def prepare(args, model):
    model.network, optimizer, _, _ = deepspeed.initialize(
        args=args, model=model.network, model_parameters=model.parameters()
    )
    return model, optimizer


# case: the DeepSpeed engine deepspeed.initialize stored on the model
def validate_engine(model, batches):
    model.eval()
    total = 0.0
    for batch in batches:
        total += model.network(batch.to("cuda")).item()  # expect: TPF002
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Linear(8, 8)
    loader = [(torch.randn(4, 8), torch.randn(4, 8))]
    train(args, model, loader)
    print(pretrain_validation(args, model, loader))
    print(score(DistributedDataParallel(model), loader))
    print(evaluate(model, loader, args.device))
    print(probe(model, loader))
    wrapped, _ = prepare(args, model)
    print(validate_engine(wrapped, loader))


if __name__ == "__main__":
    main()
