# TPF002 inference_without_no_grad: Accelerate puts batches on the device itself.
import torch
from accelerate import Accelerator
from transformers import AutoModelForSequenceClassification


# case: evaluation over a prepared loader, batches fed straight into the model
def evaluate(accelerator, model, eval_dataloader):
    model.eval()
    correct = 0
    for batch in eval_dataloader:
        outputs = model(**batch)  # expect: TPF002
        preds = outputs.logits.argmax(dim=-1)
        refs = accelerator.gather(batch["labels"])
        correct += (accelerator.gather(preds) == refs).sum().item()
    return correct


def main(train_dataloader, eval_dataloader):
    torch.manual_seed(0)
    accelerator = Accelerator()
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased")
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    model, optimizer, train_dataloader, eval_dataloader = accelerator.prepare(
        model, optimizer, train_dataloader, eval_dataloader)
    for epoch in range(3):
        model.train()
        for batch in train_dataloader:
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
        print(epoch, evaluate(accelerator, model, eval_dataloader))
