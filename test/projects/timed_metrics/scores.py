# Error metrics of a depth predictor, read to the host for the log: every
# `float(...)` of a tensor waits for the kernels that compute it.
import torch


class DepthScore:
    def __init__(self):
        self.abs_rel = 0.0
        self.delta = 0.0

    def measure(self, pred, gt):
        mask = gt > 0
        ratio = torch.maximum(pred[mask] / gt[mask], gt[mask] / pred[mask])
        self.abs_rel = float(torch.mean((pred[mask] - gt[mask]).abs() / gt[mask]))
        self.delta = float((ratio < 1.25).float().mean())
        return self
