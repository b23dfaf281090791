# TPF016 tensor_move_discarded: a tensor's move or cast is thrown away.
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader, TensorDataset


# case: batches of a DataLoader moved without assigning the result
def train(model, dataset, optimizer, device):
    loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=4, pin_memory=True)
    for x, y in loader:
        x.to(device)  # expect: TPF016
        y.cuda()  # expect: TPF016
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


# case: a dict batch from enumerate(loader)
def run(model, dataset, device):
    loader = DataLoader(dataset, batch_size=8, num_workers=2, pin_memory=True)
    for step, batch in enumerate(loader):
        ids = batch["input_ids"]
        ids.to(device, non_blocking=True)  # expect: TPF016
        model(ids)


# case: a tensor from a torch factory cast to half
def make_inputs(model):
    noise = torch.randn(16, 3, 224, 224)
    noise.half()  # expect: TPF016
    return model(noise)


# case: a module's output moved to the host, then converted
def predict(images):
    net = torchvision.models.resnet18()
    logits = net(images)
    logits.cpu()  # expect: TPF016
    return logits.numpy()


# case: a loader over a module-level dataset, the labels cast to float
data = TensorDataset(torch.zeros(100, 4), torch.zeros(100))
train_loader = DataLoader(data, batch_size=10, num_workers=2, pin_memory=True)


def fit(model, optimizer):
    for features, target in train_loader:
        target.float()  # expect: TPF016
        loss = nn.functional.mse_loss(model(features).squeeze(1), target)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
