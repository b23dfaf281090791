# TPF009 must stay silent: in a test suite's module (test_*.py, never run
# as a program) the host reads are the assertions themselves.
import torch


def check_every_parameter_gets_a_gradient(model, batches):
    torch.manual_seed(0)
    model = model.cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in batches:
        opt.zero_grad()
        model(x.cuda()).sum().backward()
        opt.step()
        for name, p in model.named_parameters():
            assert p.grad.count_nonzero().item() > 0, name
