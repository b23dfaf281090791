# The project's checkpoint helpers: each writes under the folder it is
# given (summaries: "torch.save to folder"), through a join, a template
# and another helper.
import os

import torch


def save_checkpoint(model, optimizer, epoch, folder, finetune=False):
    prefix = "finetune_" if finetune else ""
    torch.save(model, os.path.join(folder, prefix + "model.pt"))
    torch.save(optimizer.state_dict(), os.path.join(folder, prefix + "optimizer.pt"))
    torch.save({"epoch": epoch + 1}, os.path.join(folder, "misc.pt"))


def save_weights(state, run_dir, step):
    torch.save(state, "%s/weights_%d.pt" % (run_dir, step))


def snapshot(model, out):
    save_weights(model.state_dict(), out, 0)
