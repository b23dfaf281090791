# TPF002 must stay silent: a transformers pipeline object runs its model
# under inference_mode itself (Pipeline.forward), and so does a diffusers
# pipeline's __call__ (decorated with torch.no_grad()).
import random

from diffusers import StableDiffusionPipeline
from transformers import AutoModelForCausalLM, AutoTokenizer, TextGenerationPipeline


def show_samples(model_dir, prompts):
    model = AutoModelForCausalLM.from_pretrained(model_dir).cuda()
    model.eval()
    generator = TextGenerationPipeline(model=model, tokenizer=AutoTokenizer.from_pretrained(model_dir))
    for prompt in random.sample(prompts, k=min(4, len(prompts))):
        print(generator(prompt, max_new_tokens=64)[0]["generated_text"])


def render(prompts):
    pipe = StableDiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5").to("cuda")
    for i, prompt in enumerate(prompts):
        pipe(prompt, num_inference_steps=25).images[0].save(f"sample_{i}.png")


if __name__ == "__main__":
    show_samples("out/checkpoint", ["Once upon a time", "The capital of France"])
    render(["a red bicycle"])
