# tpf: target=a10g breakdown
"""Seq2seq fine-tuning of flan-t5-base with bf16 autocast, a tokenizer padding to max_length and 8-bit AdamW."""
import argparse

import bitsandbytes as bnb
import torch
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="google/flan-t5-base")
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--max-source-length", type=int, default=512)
args = parser.parse_args()

tokenizer = AutoTokenizer.from_pretrained(args.model)
model = AutoModelForSeq2SeqLM.from_pretrained(args.model).cuda()
optimizer = bnb.optim.AdamW8bit(model.parameters(), lr=3e-4)

texts = ["summarize: " + "lorem ipsum " * 100] * args.batch_size
for step in range(1000):
    enc = tokenizer(texts, max_length=args.max_source_length, padding="max_length", truncation=True,
                    return_tensors="pt")
    ids = enc["input_ids"].cuda()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
