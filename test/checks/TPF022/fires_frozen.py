# TPF022 backward_without_graph: an optimizer over a model whose parameters
# were all frozen before it was built.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


# case: a loop freezes every parameter, then the optimizer takes them all
def finetune(loader):
    net = torchvision.models.resnet50(weights="IMAGENET1K_V2")
    for param in net.parameters():
        param.requires_grad = False
    optimizer = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)  # expect: TPF022
    for images, labels in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(net(images), labels)
        loss.backward()
        optimizer.step()


# case: requires_grad_(False) on the whole model, the step in a helper
def run_epoch(model, loader, opt):
    model.train()
    for x, y in loader:
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()


def main(loader, epochs):
    encoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8)).cuda()
    encoder.requires_grad_(False)
    adam = torch.optim.Adam(encoder.parameters(), lr=3e-4)  # expect: TPF022
    for _ in range(epochs):
        run_epoch(encoder, loader, adam)


# case: named_parameters with the name unused, a GradScaler step
def train_amp(model, loader):
    for name, p in model.named_parameters():
        p.requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)  # expect: TPF022
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


# case: freezing after moving the model, a scheduler and an inspecting print between
def schedule(model, loader, device):
    model = model.to(device)
    for p in model.parameters():
        p.requires_grad = False
    print(sum(p.numel() for p in model.parameters()))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)  # expect: TPF022
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x.to(device)), y.to(device)).backward()
            opt.step()
        sched.step()
