# TPF020 silent: a GAN-style script, all at module level, that resumes from
# its own checkpoints. Each path is a literal template the script writes
# ("saved_models/..."); the option only fills an epoch number or a run name
# inside it, so the file read is the one this script saved, not a path from
# outside.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epoch", type=int, default=0)
parser.add_argument("--dataset_name", default="facades")
opt = parser.parse_args()
generator = torch.nn.Linear(4, 4)
discriminator = torch.nn.Linear(4, 1)

# case: printf-style template, the option fills the epoch
if opt.epoch != 0:
    generator.load_state_dict(torch.load("saved_models/generator_%d.pth" % opt.epoch))

# case: a printf tuple, options fill the run name and the epoch
if opt.epoch != 0:
    state = torch.load("saved_models/%s/discriminator_%d.pth" % (opt.dataset_name, opt.epoch))
    discriminator.load_state_dict(state)

# case: an f-string whose folder is literal
ckpt = f"checkpoints/{opt.dataset_name}/G_{opt.epoch}.pt"
generator.load_state_dict(torch.load(ckpt, map_location="cpu"))

# case: str.format on a literal template
discriminator.load_state_dict(torch.load("checkpoints/D_{}.pt".format(opt.epoch)))

# case: a literal prefix plus the option
generator.load_state_dict(torch.load("saved_models/" + opt.dataset_name + ".pth"))

for epoch in range(opt.epoch, 200):
    torch.save(generator.state_dict(), "saved_models/generator_%d.pth" % epoch)
