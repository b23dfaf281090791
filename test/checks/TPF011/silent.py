# TPF011 repeated_host_to_device_transfer: moves that are fine.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
device = torch.device("cuda")


# case: moving each batch (it changes every iteration)
def fit(model, loader, optimizer):
    model.to(device)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: device-to-host copies and dtype casts of invariant values
def log_stats(model, loader, optimizer, scale):
    for x, y in loader:
        s = scale.to(torch.float16)
        optimizer.zero_grad()
        loss = F.mse_loss(model(x.cuda()) * s, y.cuda())
        loss.backward()
        optimizer.step()
        print(scale.cpu(), loss.item())


# case: deliberate move-and-restore (offloading a frozen teacher)
def distill(student, teacher, loader, optimizer):
    for x, y in loader:
        teacher.to(device)
        with torch.no_grad():
            soft = teacher(x.to(device))
        teacher.to("cpu")
        optimizer.zero_grad()
        F.kl_div(student(x.to(device)).log_softmax(-1), soft.softmax(-1)).backward()
        optimizer.step()


# case: a move once per epoch, outside the step loop
def epochs(model, loader, optimizer, n):
    for epoch in range(n):
        model.cuda()
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x.cuda()), y.cuda()).backward()
            optimizer.step()


# case: a value reassigned in the loop is not invariant
def recurrent(model, loader, optimizer, h0):
    h = h0
    for x in loader:
        h = h.cuda().detach()
        optimizer.zero_grad()
        out, h = model(x.cuda(), h)
        out.mean().backward()
        optimizer.step()
