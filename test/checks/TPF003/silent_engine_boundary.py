# TPF003: a DeepSpeed engine's step() zeroes the gradients it applies. An
# object asked the engine's own question (`is_gradient_accumulation_boundary()`)
# and stepped is taken for an engine even when its backward runs in a helper.
# Silent: a train step that zeroes the plain optimizer only off DeepSpeed and
# steps the engine at each accumulation boundary.
# fires_engine_boundary.py keeps a plain module's loop with no zero_grad.
import torch


def backprop(engine_or_opt, model, loss, use_engine):
    if use_engine:
        model.backward(loss)
    else:
        loss.backward()


def train_step(batches, model, optimizer, use_engine):
    if not use_engine:
        optimizer.zero_grad()
    for batch in batches:
        loss = model(batch).mean()
        backprop(optimizer, model, loss, use_engine)
        if use_engine:
            if model.is_gradient_accumulation_boundary():
                model.step()
        else:
            optimizer.step()
            break
