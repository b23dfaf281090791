# A wider model on longer windows, at a smaller batch.
hidden = 1024
window = 512
batch_size = 16
