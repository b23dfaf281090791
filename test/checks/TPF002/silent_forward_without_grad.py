# Modules whose own forward turns grad mode off: an EMA teacher decorated
# with `@torch.no_grad()`, and a metric network whose forward runs in
# `torch.inference_mode()`. Calling them over a loader records no graph,
# whatever grad mode the caller is in.
import torch
import torch.nn as nn

torch.manual_seed(0)


class EmaTeacher(nn.Module):
    def __init__(self, student, decay=0.999):
        super().__init__()
        self.shadow = nn.Linear(16, 10)
        self.shadow.load_state_dict(student.state_dict())
        self.decay = decay

    @torch.no_grad()
    def forward(self, x):
        return self.shadow(x).softmax(-1)


class PerceptualScore(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))

    def forward(self, a, b):
        with torch.inference_mode():
            fa, fb = self.features(a), self.features(b)
            if fa.shape[0] == 0:
                return None
            return (fa - fb).pow(2).mean(1)


student = nn.Linear(16, 10).cuda()
teacher, metric = EmaTeacher(student).cuda(), PerceptualScore().cuda()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 16)), batch_size=8,
                                     num_workers=2, pin_memory=True)
pseudo, dist = [], 0.0
for (x,) in loader:
    x = x.cuda(non_blocking=True)
    pseudo.append(teacher(x).argmax(1).cpu())
    dist += metric(x, x.flip(0)).sum().item()
print(len(pseudo), dist)
