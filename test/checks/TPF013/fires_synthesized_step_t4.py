# tpf: target=t4
# case: a trainer from a library runs the step, so one step is synthesized; even the low end of its interval is over the T4, so the gate closes; a larger net is only a weight source
import torch
import torch.nn as nn

from lab.trainer import fit

torch.manual_seed(0)
source = nn.Sequential(nn.Linear(4096, 16384), nn.ReLU(), nn.Linear(16384, 16384), nn.ReLU(), nn.Linear(16384, 4096))
student = nn.Sequential(nn.Linear(4096, 8192), nn.ReLU(), nn.Linear(8192, 8192), nn.ReLU(), nn.Linear(8192, 1000))  # expect: TPF013
student[0].weight.data.copy_(source[0].weight.data[:8192])
student = student.cuda()
opt = torch.optim.AdamW(student.parameters(), lr=1e-4)
BATCH = 131072
fit(student, opt, batch_size=BATCH, epochs=10)
