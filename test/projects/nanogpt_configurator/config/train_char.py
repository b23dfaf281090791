# A small character-level model: shorter windows, a bigger batch, no accumulation.
out_dir = 'out-char'
gradient_accumulation_steps = 1
batch_size = 64
block_size = 256
n_layer = 6
n_head = 6
n_embd = 384
dropout = 0.2
