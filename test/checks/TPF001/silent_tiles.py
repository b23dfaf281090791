# TPF001 loss_appended_with_graph: tiles decoded in a nested loop, kept in
# rows and joined into the returned image; the caller owns the graph (it
# may train through the decoder).
import torch
import torch.nn as nn

from mylib.modeling import ModelBase


class TiledDecoder(ModelBase):
    def __init__(self):
        super().__init__()
        self.decoder = nn.ConvTranspose2d(4, 3, 8, stride=8)

    # case: rows of tiles put into an outer list, blended and returned
    def tiled_decode(self, z, tile=16):
        rows = []
        for i in range(0, z.shape[-2], tile):
            row = []
            for j in range(0, z.shape[-1], tile):
                decoded = self.decoder(z[:, :, i : i + tile, j : j + tile])
                row.append(decoded)
            rows.append(row)
        return torch.cat([torch.cat(r, dim=-1) for r in rows], dim=-2)


# case: frames per clip gathered in a list of lists, stacked by the caller's helper
def decode_clips(clips):
    decoder = nn.Conv2d(4, 3, 3, padding=1)
    batches = []
    for clip in clips:
        frames = []
        for t in range(clip.shape[2]):
            frames.append(decoder(clip[:, :, t]))
        batches.append(frames)
    return [torch.stack(f, dim=2) for f in batches]
