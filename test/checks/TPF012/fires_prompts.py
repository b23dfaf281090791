# TPF012: loaders beside a generation pipeline whose batches are still
# tensors (or may be), so workers and pinning do matter.
import argparse

import torch
from diffusers import DiffusionPipeline
from torch.utils.data import DataLoader

from utils.dataset import ImageDataset, PromptDataset


def embed(batch):
    return batch


# case: the items go to the pipeline and are moved to the GPU
def refine(images):
    pipe = DiffusionPipeline.from_pretrained("stabilityai/sd-x2-latent-upscaler")
    loader = DataLoader(images, batch_size=4)  # expect: TPF012
    for batch in loader:
        pipe(image=batch.to("cuda"))


# case: the items go to a model, not a pipeline
def train(model, opt, root):
    loader = DataLoader(ImageDataset(root), batch_size=16, shuffle=True)  # expect: TPF012
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x.cuda()), y.cuda()).backward()
        opt.step()


# case: prompts to a pipeline, but also to a helper of the file
def encode_prompts(prompt):
    pipe = DiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5")
    loader = DataLoader(PromptDataset(prompt, 4), batch_size=2)  # expect: TPF012
    for example in loader:
        pipe(example["prompt"])
        embed(example["prompt"])


# case: the pipeline comes from a helper the rule cannot see into
def sample(make_pipe, prompt):
    pipe = make_pipe()
    for example in DataLoader(PromptDataset(prompt, 4), batch_size=2):  # expect: TPF012
        pipe(example["prompt"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="data")
    args = parser.parse_args()
    torch.manual_seed(0)
    pipe = DiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5")
    model = torch.nn.Linear(4, 4).cuda()
    opt = torch.optim.AdamW(model.parameters())
    refine([torch.randn(3, 8, 8)])
    train(model, opt, args.root)
    encode_prompts("a dog")
    sample(lambda: pipe, "a dog")


if __name__ == "__main__":
    main()
