# TPF012 must stay silent: loaders that serve text prompts to a generation
# pipeline before training (dreambooth's class images); the batches are
# strings and indices, with nothing to load in workers or to pin.
import argparse
import hashlib

import torch
import transformers
from accelerate import Accelerator
from diffusers import DiffusionPipeline
from torch.utils.data import DataLoader
from tqdm.auto import tqdm

from utils.dataset import PromptDataset


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="runwayml/stable-diffusion-v1-5")
    parser.add_argument("--class_prompt", default="a photo of a dog")
    return parser.parse_args()


# case: a dataset class of another module, its loader prepared by Accelerate
def make_class_images(args, accelerator, num_new_images):
    pipeline = DiffusionPipeline.from_pretrained(args.model, safety_checker=None)
    sample_dataset = PromptDataset(args.class_prompt, num_new_images)
    sample_dataloader = torch.utils.data.DataLoader(sample_dataset, batch_size=4)
    sample_dataloader = accelerator.prepare(sample_dataloader)
    pipeline.to(accelerator.device)
    for example in tqdm(sample_dataloader, desc="Generating class images"):
        images = pipeline(example["prompt"]).images
        for i, image in enumerate(images):
            digest = hashlib.sha1(image.tobytes()).hexdigest()
            image.save(f"class/{int(example['index'][i])}-{digest}.jpg")


# case: a plain list of prompt strings, to a transformers pipeline
def caption_prompts(prompts):
    writer = transformers.pipeline("text-generation", model="gpt2", device=0)
    loader = DataLoader(prompts, batch_size=8)
    texts = []
    for batch in loader:
        texts.extend(writer(list(batch), max_new_tokens=16))
    return texts


# case: items unpacked before they reach the pipeline
def paired(pairs):
    pipe = DiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5")
    for prompt, seed in DataLoader(pairs, batch_size=2):
        pipe(prompt, num_inference_steps=int(len(seed))).images[0].save("x.png")


# case: a module-level loader over prompts
prompt_loader = DataLoader(["a cat", "a dog"], batch_size=1)
painter = DiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5")
for p in prompt_loader:
    painter(p).images[0].save("p.png")


def main():
    args = parse_args()
    torch.manual_seed(0)
    accelerator = Accelerator()
    make_class_images(args, accelerator, 8)
    print(caption_prompts(["hello", "world"]), paired([("a", 1)]))
    model = torch.nn.Linear(4, 4).cuda()
    opt = torch.optim.AdamW(model.parameters())
    data = torch.utils.data.TensorDataset(torch.randn(16, 4))
    for (x,) in DataLoader(data, batch_size=4, num_workers=4, pin_memory=True):
        opt.zero_grad()
        model(x.cuda()).sum().backward()
        opt.step()


if __name__ == "__main__":
    main()
