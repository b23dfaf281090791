# TPF022 backward_without_graph: frozen parameters with something left to
# train; all correct, all silent.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from peft import LoraConfig, get_peft_model


def fit(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: only a submodule is frozen; the optimizer holds the whole model
def freeze_backbone(model, loader):
    for p in model.backbone.parameters():
        p.requires_grad = False
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    fit(model, loader, opt)


# case: freeze everything, then a new head (new layers require grad)
def replace_head(loader, num_classes):
    model = torchvision.models.resnet18(weights="DEFAULT")
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    opt = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    fit(model, loader, opt)


# case: a new last layer of a Sequential classifier
def replace_classifier(loader):
    model = torchvision.models.vgg16(weights="DEFAULT")
    model.requires_grad_(False)
    model.classifier[6] = nn.Linear(4096, 10)
    opt = torch.optim.Adam(model.parameters())
    fit(model, loader, opt)


# case: the optimizer gets only what still requires grad
def filtered(model, loader):
    model.requires_grad_(False)
    opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-4)
    fit(model, loader, opt)


# case: a frozen teacher, the optimizer over the student
def distill(teacher, student, loader):
    teacher.requires_grad_(False)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        with torch.no_grad():
            soft = teacher(x).softmax(-1)
        F.kl_div(student(x).log_softmax(-1), soft, reduction="batchmean").backward()
        opt.step()


# case: PEFT adds trainable LoRA weights to the frozen model
def lora(model, loader):
    for p in model.parameters():
        p.requires_grad = False
    model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
    fit(model, loader, opt)


# case: freezing only when asked
def maybe_frozen(model, loader, args):
    if args.freeze:
        model.requires_grad_(False)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    fit(model, loader, opt)


# case: a condition inside the freezing loop
def freeze_by_name(model, loader):
    for name, p in model.named_parameters():
        if not name.startswith("fc."):
            p.requires_grad = False
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    fit(model, loader, opt)


# case: a helper of the file adds the head after freezing
def add_head(model, n):
    model.head = nn.Linear(768, n)


def with_helper(model, loader):
    model.requires_grad_(False)
    add_head(model, 10)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    fit(model, loader, opt)


# case: add_module registers a new trainable layer
def add_module_head(model, loader):
    model.requires_grad_(False)
    model.add_module("head", nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    fit(model, loader, opt)


# case: frozen and never stepped (feature extraction)
def extract(model, loader):
    model.requires_grad_(False)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    feats = [model(x) for x, _ in loader]
    return feats, opt


# case: the frozen name is rebound to a new model before the optimizer
def rebound(loader):
    model = torchvision.models.resnet18(weights="DEFAULT")
    model.requires_grad_(False)
    model = torchvision.models.resnet18(num_classes=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    fit(model, loader, opt)
