# tpf: target=a10g seq-len=256
"""alpaca-lora's recipe on LLaMA 7B: 8-bit base (LLM.int8: a byte a weight and a scale per row), prepare_model_for_int8_training, LoRA r=8 on q_proj and v_proj: 4,194,304 trainable parameters of 6,742,609,920; the frozen base has no gradients and no optimizer state."""
import torch
import transformers
from peft import LoraConfig, get_peft_model, prepare_model_for_int8_training
from transformers import LlamaForCausalLM

model = LlamaForCausalLM.from_pretrained("huggyllama/llama-7b", load_in_8bit=True, torch_dtype=torch.float16)
model = prepare_model_for_int8_training(model)
config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], lora_dropout=0.05, bias="none",
                    task_type="CAUSAL_LM")
model = get_peft_model(model, config)
model.print_trainable_parameters()
args = transformers.TrainingArguments(per_device_train_batch_size=4, gradient_accumulation_steps=32, fp16=True,
                                      optim="adamw_torch", output_dir="lora-alpaca")
trainer = transformers.Trainer(model=model, train_dataset=None, args=args)
trainer.train()
