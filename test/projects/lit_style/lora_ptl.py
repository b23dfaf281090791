# LoRA fine-tuning of a named configuration under Lightning, as litgpt's
# ptl-trainer tutorial does it: the LoRA Config subclass keeps the named
# sizes, only the adapters train, the weights are bfloat16 ("bf16-true").
import lightning as L
import torch

from minigpt.lora import GPT, mark_only_lora_as_trainable


class LitLLM(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = GPT.from_name(name="tiny-llama", lora_r=8, lora_alpha=16, lora_query=True)
        mark_only_lora_as_trainable(self.model)

    def training_step(self, batch):
        logits = self.model(batch)
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), batch.flatten())

    def configure_optimizers(self):
        return torch.optim.AdamW(self.model.parameters(), lr=2e-4)


class Tokens(torch.utils.data.Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        return torch.randint(0, 32000, (512,))


if __name__ == "__main__":
    trainer = L.Trainer(devices=1, max_epochs=1, precision="bf16-true")
    model = LitLLM()
    trainer.fit(model, torch.utils.data.DataLoader(Tokens(), batch_size=4))
