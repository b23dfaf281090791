# TPF011 repeated_host_to_device_transfer: the same bytes copied to the GPU
# every training step.
import torch
import torch.nn.functional as F
from tqdm import tqdm

torch.manual_seed(0)
device = torch.device("cuda")


# case: constant class weights moved every step
def train(net, loader, opt, class_weights):
    for step, (inputs, labels) in enumerate(tqdm(loader)):
        w = class_weights.cuda()  # expect: TPF011
        opt.zero_grad()
        loss = F.cross_entropy(net(inputs.cuda()), labels.cuda(), weight=w)
        loss.backward()
        opt.step()


# case: a buffer of the trainer object, moved every iteration
class Trainer:
    def __init__(self, model, optimizer, mean):
        self.model = model
        self.optimizer = optimizer
        self.mean = mean

    def run(self, loader, args):
        for batch in loader:
            mean = self.mean.to(args.device)  # expect: TPF011
            out = self.model(batch.to(args.device) - mean)
            self.optimizer.zero_grad()
            out.sum().backward()
            self.optimizer.step()


# case: a mask built before the while loop, .cuda() each step
def steps(model, get_batch, opt, n_steps):
    mask = torch.tril(torch.ones(64, 64))
    step = 0
    while step < n_steps:
        m = mask.to("cuda:0")  # expect: TPF011
        x = get_batch()
        opt.zero_grad()
        model(x, m).mean().backward()
        opt.step()
        step += 1
