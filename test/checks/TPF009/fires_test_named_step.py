# TPF009 device_sync_in_inner_loop: in a training script (not a test
# suite's file) a function named `test_*` that trains is still a
# training step: its per-element copies fire.
import torch

torch.manual_seed(0)


# case: test-time adaptation steps an optimizer every batch
def test_time_adapt(model, loader, opt):
    for x in loader:
        out = model(x.cuda())
        loss = -(out.softmax(1) * out.log_softmax(1)).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        for row in out:
            print(row.argmax().item())  # expect: TPF009


if __name__ == "__main__":
    test_time_adapt(None, [], None)
