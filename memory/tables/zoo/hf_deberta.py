"""DeBERTa-v3 (microsoft/deberta-v3-*, DebertaV2 in transformers), as the
estimator's interpreter runs it.

Module for module transformers 4.46's modeling_deberta_v2.py for the v3
checkpoints' config (position_biased_input=False: no absolute positions,
type_vocab_size 0, relative_attention with position_buckets 256,
share_att_key=True so the relative embeddings go through the layer's own
key_proj and query_proj, pos_att_type "p2c|c2p", norm_rel_ebd
"layer_norm"): token embeddings and LayerNorm, layers of
query/key/value_proj (biased) with a dense + LayerNorm output, a GELU
intermediate and its output + LayerNorm, and the encoder's rel_embeddings
(2 * 256 rows) with their LayerNorm. Attention is eager (DeBERTa has no SDPA
class in 4.46): the content score and the two disentangled scores (c2p, p2c)
are (T, T) matrices per head. Heads: DebertaV2Model, ...ForMaskedLM (the
decoder tied to the embedding, with its own bias) and
...ForSequenceClassification (ContextPooler then the classifier).
Parameter counts: deberta-v3-base 183,831,552 for the bare model (the model
card's 98M embedding + 86M backbone), deberta-v3-large 434,012,160 (131M +
304M).
This file is interpreted by tpf-analyze, never imported by it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_models import ModelOutput, PreTrainedModel, cls_output

POSITION_BUCKETS = 256


class DisentangledSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // self.num_heads
        self.query_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.key_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.value_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(0.1)

    def heads(self, x):
        return x.view(x.size(0), x.size(1), self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, hidden_states, rel_embeddings):
        bsz = hidden_states.size(0)
        seq = hidden_states.size(1)
        q = self.heads(self.query_proj(hidden_states))
        k = self.heads(self.key_proj(hidden_states))
        v = self.heads(self.value_proj(hidden_states))
        # share_att_key: the relative embeddings through the same projections.
        rel = rel_embeddings.unsqueeze(0)
        pos_k = self.heads(self.key_proj(rel))
        pos_q = self.heads(self.query_proj(rel))
        scale = 1.0 / math.sqrt(self.head_dim * 3)
        scores = torch.matmul(q, k.transpose(-1, -2)) * scale
        # c2p and p2c: each query (key) against the 2 * buckets relative rows,
        # (T, 512) per head. transformers then gathers each pair's bucket into
        # a (T, T) score; here a reduction stands for the gather (its (T, T)
        # output and int64 index are not counted separately).
        c2p = torch.matmul(q, pos_k.transpose(-1, -2)).mean(-1, keepdim=True)
        p2c = torch.matmul(k, pos_q.transpose(-1, -2)).mean(-1, keepdim=True).transpose(-1, -2)
        scores = scores + (c2p + p2c) * scale
        probs = self.dropout(F.softmax(scores, dim=-1))
        out = torch.matmul(probs, v)
        return out.transpose(1, 2).reshape(bsz, seq, self.num_heads * self.head_dim)


class DebertaV2Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self = DisentangledSelfAttention(config)
        self.attention_dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.attention_norm = nn.LayerNorm(config.hidden_size, eps=1e-7)
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.output = nn.Linear(config.intermediate_size, config.hidden_size)
        self.output_norm = nn.LayerNorm(config.hidden_size, eps=1e-7)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, rel_embeddings):
        attn = self.self(hidden_states, rel_embeddings)
        hidden_states = self.attention_norm(self.dropout(self.attention_dense(attn)) + hidden_states)
        inter = F.gelu(self.intermediate(hidden_states))
        return self.output_norm(self.dropout(self.output(inter)) + hidden_states)


class DebertaV2Model(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=0)
        self.embeddings_norm = nn.LayerNorm(config.hidden_size, eps=1e-7)
        self.layer = nn.ModuleList([DebertaV2Layer(config) for _ in range(config.num_hidden_layers)])
        self.rel_embeddings = nn.Embedding(2 * POSITION_BUCKETS, config.hidden_size)
        self.rel_norm = nn.LayerNorm(config.hidden_size, eps=1e-7)
        self.dropout = nn.Dropout(0.1)

    def checkpoint_units(self):
        return list(self.layer)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.dropout(self.embeddings_norm(self.word_embeddings(input_ids)))
        rel = self.rel_norm(self.rel_embeddings.weight)
        for layer in self.layer:
            hidden = layer(hidden, rel)
        return ModelOutput(last_hidden_state=hidden)


class DebertaV2ForMaskedLM(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.deberta = DebertaV2Model(config)
        self.transform = nn.Linear(config.hidden_size, config.hidden_size)
        self.transform_norm = nn.LayerNorm(config.hidden_size, eps=1e-7)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)
        self.decoder.weight = self.deberta.word_embeddings.weight

    def checkpoint_units(self):
        return self.deberta.checkpoint_units()

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.deberta(input_ids).last_hidden_state
        logits = self.decoder(self.transform_norm(F.gelu(self.transform(hidden))))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, self.config.vocab_size), labels.view(-1))
        return ModelOutput(loss=loss, logits=logits)


class DebertaV2ForSequenceClassification(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.deberta = DebertaV2Model(config)
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.dropout = nn.Dropout(0.1)

    def checkpoint_units(self):
        return self.deberta.checkpoint_units()

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.deberta(input_ids).last_hidden_state
        pooled = F.gelu(self.pooler(self.dropout(hidden[:, 0, :])))
        return cls_output(self.classifier(self.dropout(pooled)), labels)


def build_deberta_v2(config, head):
    if head == "mlm" or head == "lm":
        return DebertaV2ForMaskedLM(config)
    if head == "cls":
        return DebertaV2ForSequenceClassification(config)
    return DebertaV2Model(config)
