# tpf: target=t4
"""QLoRA on Mistral-7B in a plain loop: NF4 with double quantization (about 0.52 bytes a weight with its constants), bfloat16 compute, prepare_model_for_kbit_training (gradient checkpointing on), LoRA r=16 on every linear layer; AdamW holds state for the adapters only."""
import torch
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                         bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", quantization_config=bnb,
                                             torch_dtype=torch.bfloat16)
model = prepare_model_for_kbit_training(model)
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules="all-linear",
                                         task_type="CAUSAL_LM"))
opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
data = TensorDataset(torch.randint(0, 32000, (64, 512)))
for (ids,) in DataLoader(data, batch_size=2):
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
