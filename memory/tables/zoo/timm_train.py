"""timm's training helpers, as the estimator's interpreter runs them.

What pytorch-image-models' train.py calls between the model and its step
(timm 1.0: timm/data/config.py resolve_data_config, timm/data/loader.py
create_loader, timm/loss/cross_entropy.py, timm/optim/_optim_factory.py
create_optimizer_v2 and optimizer_kwargs, timm/task/classification.py
ClassificationTask), reduced to what memory depends on: the loader's batch
shape, the loss's ops, which optimizer steps which parameters, and the task's
forward. Augmentation, sampling, logging and metrics are left out. This
file is interpreted by tpf-analyze, never run by it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def resolve_data_config(args=None, pretrained_cfg=None, model=None, use_test_size=False, verbose=False):
    """The input size: the script's input_size, else img_size, else the model's pretrained config."""
    size = None
    if isinstance(args, dict):
        if args.get("input_size") is not None:
            size = tuple(args["input_size"])
        elif args.get("img_size") is not None:
            size = (3, args["img_size"], args["img_size"])
    if size is None and model is not None and hasattr(model, "pretrained_cfg"):
        size = tuple(model.pretrained_cfg["input_size"])
    if size is None:
        size = (3, 224, 224)
    return {"input_size": size, "interpolation": "bicubic", "mean": (0.485, 0.456, 0.406),
            "std": (0.229, 0.224, 0.225), "crop_pct": 0.875, "crop_mode": "center"}


class ImageDataset(torch.utils.data.Dataset):
    """create_dataset's result: a folder or a hub dataset the interpreter does not read."""

    def __init__(self, name="", root=None, split="train", **kwargs):
        self.name = name

    def __len__(self):
        return 1281167  # ImageNet-1k's train split; only a step's batch matters


def create_dataset(name="", root=None, split="validation", **kwargs):
    return ImageDataset(name, root, split)


class ImageBatches(torch.utils.data.Dataset):
    """What create_loader's batches hold: a normalized float image and a class index."""

    def __init__(self, dataset, input_size):
        self.dataset = dataset
        self.input_size = input_size

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, i):
        return torch.zeros(self.input_size), torch.tensor(0)


def create_loader(dataset, input_size=(3, 224, 224), batch_size=1, is_training=False, **kwargs):
    """A loader of `batch_size` images of `input_size` (the prefetcher's
    normalization and device copy keep the shape)."""
    if isinstance(input_size, int):
        input_size = (3, input_size, input_size)
    return torch.utils.data.DataLoader(ImageBatches(dataset, tuple(input_size)), batch_size=batch_size,
                                       shuffle=is_training, drop_last=is_training)


class LabelSmoothingCrossEntropy(nn.Module):
    def __init__(self, smoothing=0.1):
        super().__init__()
        self.smoothing = smoothing
        self.confidence = 1.0 - smoothing

    def forward(self, x, target):
        logprobs = F.log_softmax(x, dim=-1)
        nll_loss = -logprobs.gather(dim=-1, index=target.unsqueeze(1))
        nll_loss = nll_loss.squeeze(1)
        smooth_loss = -logprobs.mean(dim=-1)
        loss = self.confidence * nll_loss + self.smoothing * smooth_loss
        return loss.mean()


class SoftTargetCrossEntropy(nn.Module):
    def forward(self, x, target):
        loss = torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1)
        return loss.mean()


def optimizer_kwargs(cfg):
    """The optimizer's arguments from a train.py namespace."""
    kwargs = {"opt": cfg.opt, "lr": cfg.lr, "weight_decay": cfg.weight_decay, "momentum": cfg.momentum}
    if getattr(cfg, "opt_eps", None) is not None:
        kwargs["eps"] = cfg.opt_eps
    if getattr(cfg, "opt_betas", None) is not None:
        kwargs["betas"] = cfg.opt_betas
    return kwargs


def create_optimizer_v2(model_or_params, opt="sgd", lr=None, weight_decay=0.0, momentum=0.9, foreach=None,
                        filter_bias_and_bn=True, layer_decay=None, param_group_fn=None, **kwargs):
    """The torch optimizer `opt` names ("sgd", "momentum", "nesterov",
    "adam", "adamw", "rmsprop", with an optional "fused"/"lookahead_"
    prefix; their state is the same) over the model's parameters."""
    if isinstance(model_or_params, nn.Module):
        params = model_or_params.parameters()
    else:
        params = model_or_params
    if lr is None:
        lr = 0.1
    name = opt.lower().split("_")[-1]
    if name == "adam":
        return torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    if name == "rmsprop" or name == "rmsproptf":
        return torch.optim.RMSprop(params, lr=lr, momentum=momentum, weight_decay=weight_decay)
    if name == "sgd" or name == "nesterov" or name == "momentum":
        return torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay,
                               nesterov=name != "momentum")
    return None  # not reached: memory/tables/zoo.cpp reports any other name as unknown first


class ClassificationTask(nn.Module):
    """timm.task.ClassificationTask: the model's forward and the criterion in one call."""

    def __init__(self, model, criterion, device=None, dtype=None, verbose=True):
        super().__init__()
        self.model = model
        self.criterion = criterion
        self.trainable_module = model

    def get_trainable_module(self):
        return self.trainable_module

    def get_eval_model(self):
        return self.model

    def prepare_distributed(self, device_ids=None, **kwargs):
        return self

    def forward(self, input, target):
        output = self.trainable_module(input)
        loss = self.criterion(output, target)
        return {"loss": loss, "output": output}
