"""torch.nn's composite layers, as the estimator's interpreter runs them.

Each class mirrors torch 1.13's Python (torch/nn/modules/activation.py,
transformer.py, torch/nn/functional.py) op for op in training mode, so the
parameters and the tensors autograd saves come out of the same primitive
rules as the script's own code. The recurrent layers follow ATen's CPU
cell (aten/src/ATen/native/RNN.cpp: the input projection for the whole
sequence at once, then per step linear_hh(h).add_(x_w[t]) and in-place
gate activations); cuDNN's reserve buffer is modeled by the same tensors.
This file is interpreted by tpf-analyze, never imported.
"""
import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def multi_head_attention_forward(query, key, value, num_heads, in_proj_weight, in_proj_bias,
                                 dropout_p, out_proj_weight, out_proj_bias, training,
                                 key_padding_mask, attn_mask):
    tgt_len, bsz, embed_dim = query.shape
    head_dim = embed_dim // num_heads
    if key is value and query is key:
        q, k, v = F.linear(query, in_proj_weight, in_proj_bias).chunk(3, dim=-1)
    else:
        w_q, w_k, w_v = in_proj_weight.chunk(3)
        b_q, b_k, b_v = in_proj_bias.chunk(3)
        q = F.linear(query, w_q, b_q)
        if key is value:
            k, v = F.linear(key, torch.cat([w_k, w_v]), torch.cat([b_k, b_v])).chunk(2, dim=-1)
        else:
            k = F.linear(key, w_k, b_k)
            v = F.linear(value, w_v, b_v)
    if attn_mask is not None and attn_mask.dim() == 2:
        attn_mask = attn_mask.unsqueeze(0)
    q = q.contiguous().view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.contiguous().view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.contiguous().view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    src_len = k.size(1)
    if key_padding_mask is not None:
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = key_padding_mask
        else:
            attn_mask = attn_mask.masked_fill(key_padding_mask, float("-inf"))
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_mask = torch.zeros_like(attn_mask, dtype=q.dtype)
    if not training:
        dropout_p = 0.0
    q_scaled = q / math.sqrt(head_dim)
    if attn_mask is not None:
        w = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        w = torch.bmm(q_scaled, k.transpose(-2, -1))
    w = F.softmax(w, dim=-1)
    if dropout_p > 0.0:
        w = F.dropout(w, p=dropout_p)
    out = torch.bmm(w, v)
    out = out.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias)
    return out.view(tgt_len, bsz, out.size(1))


class NonDynamicallyQuantizableLinear(nn.Linear):
    pass


class MultiheadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.in_proj_weight = nn.Parameter(torch.empty(3 * embed_dim, embed_dim))
        if bias:
            self.in_proj_bias = nn.Parameter(torch.empty(3 * embed_dim))
        else:
            self.in_proj_bias = None
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        if self.batch_first:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query = query.transpose(1, 0)
                    key = key.transpose(1, 0)
                    value = key
            else:
                query = query.transpose(1, 0)
                key = key.transpose(1, 0)
                value = value.transpose(1, 0)
        out = multi_head_attention_forward(query, key, value, self.num_heads, self.in_proj_weight,
                                           self.in_proj_bias, self.dropout, self.out_proj.weight,
                                           self.out_proj.bias, self.training, key_padding_mask,
                                           attn_mask)
        if self.batch_first:
            return out.transpose(1, 0), None
        return out, None


def _activation(name):
    if name == "gelu":
        return F.gelu
    return F.relu


class TransformerEncoderLayer(nn.Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first)
        self.linear1 = nn.Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.norm2 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation(activation)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerEncoder(nn.Module):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        # _get_clones: deep copies, so every layer has its own parameters.
        self.layers = nn.ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoderLayer(nn.Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first)
        self.linear1 = nn.Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.norm2 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.norm3 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation(activation)
        self.activation = activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self.dropout1(self.self_attn(self.norm1(x), self.norm1(x), self.norm1(x),
                                                 attn_mask=tgt_mask,
                                                 key_padding_mask=tgt_key_padding_mask)[0])
            x = x + self.dropout2(self.multihead_attn(self.norm2(x), memory, memory,
                                                      attn_mask=memory_mask,
                                                      key_padding_mask=memory_key_padding_mask)[0])
            x = x + self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(self.norm3(x))))))
        else:
            x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, attn_mask=tgt_mask,
                                                            key_padding_mask=tgt_key_padding_mask)[0]))
            x = self.norm2(x + self.dropout2(self.multihead_attn(x, memory, memory,
                                                                 attn_mask=memory_mask,
                                                                 key_padding_mask=memory_key_padding_mask)[0]))
            x = self.norm3(x + self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x))))))
        return x


class TransformerDecoder(nn.Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = nn.ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class _RNNBase(nn.Module):
    gate_count = 4

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        num_directions = 2 if bidirectional else 1
        self.num_directions = num_directions
        g = self.gate_count * hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                setattr(self, f"weight_ih_l{layer}{suffix}", nn.Parameter(torch.empty(g, layer_input_size)))
                setattr(self, f"weight_hh_l{layer}{suffix}", nn.Parameter(torch.empty(g, hidden_size)))
                if bias:
                    setattr(self, f"bias_ih_l{layer}{suffix}", nn.Parameter(torch.empty(g)))
                    setattr(self, f"bias_hh_l{layer}{suffix}", nn.Parameter(torch.empty(g)))

    def _weights(self, layer, direction):
        suffix = "_reverse" if direction == 1 else ""
        w_ih = getattr(self, f"weight_ih_l{layer}{suffix}")
        w_hh = getattr(self, f"weight_hh_l{layer}{suffix}")
        b_ih = getattr(self, f"bias_ih_l{layer}{suffix}") if self.bias else None
        b_hh = getattr(self, f"bias_hh_l{layer}{suffix}") if self.bias else None
        return w_ih, w_hh, b_ih, b_hh

    def forward(self, input, hx=None):
        if self.batch_first:
            input = input.transpose(0, 1)
        steps = input.size(0)
        batch = input.size(1)
        n = self.num_layers * self.num_directions
        lstm = self.gate_count == 4
        if hx is None:
            h0 = torch.zeros(n, batch, self.hidden_size, dtype=input.dtype)
            c0 = torch.zeros(n, batch, self.hidden_size, dtype=input.dtype)
        elif lstm:
            h0, c0 = hx
        else:
            h0 = hx
            c0 = None
        layer_input = input
        hs = []
        cs = []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(self.num_directions):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction)
                idx = layer * self.num_directions + direction
                h = h0[idx]
                c = c0[idx] if lstm else None
                x_w = F.linear(layer_input, w_ih, b_ih)
                ys = []
                for t in range(steps):
                    if lstm:
                        gates = F.linear(h, w_hh, b_hh)
                        gates.add_(x_w[t])
                        i, f, g, o = gates.chunk(4, 1)
                        i = i.sigmoid_()
                        f = f.sigmoid_()
                        g = g.tanh_()
                        o = o.sigmoid_()
                        c = (f * c).add_(i * g)
                        h = o * c.tanh()
                    else:
                        gh = F.linear(h, w_hh, b_hh)
                        r_i, z_i, n_i = x_w[t].chunk(3, 1)
                        r_h, z_h, n_h = gh.chunk(3, 1)
                        r = (r_i + r_h).sigmoid_()
                        z = (z_i + z_h).sigmoid_()
                        nn_ = (n_i + r * n_h).tanh_()
                        h = (h - nn_) * z + nn_
                    ys.append(h)
                outs.append(torch.stack(ys, 0))
                hs.append(h)
                cs.append(c)
            layer_input = outs[0] if len(outs) == 1 else torch.cat(outs, 2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, p=self.dropout)
        output = layer_input
        if self.batch_first:
            output = output.transpose(0, 1)
        h_n = torch.stack(hs, 0)
        if lstm:
            return output, (h_n, torch.stack(cs, 0))
        return output, h_n


class LSTM(_RNNBase):
    gate_count = 4


class GRU(_RNNBase):
    gate_count = 3


class LSTMCell(nn.Module):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.weight_ih = nn.Parameter(torch.empty(4 * hidden_size, input_size))
        self.weight_hh = nn.Parameter(torch.empty(4 * hidden_size, hidden_size))
        if bias:
            self.bias_ih = nn.Parameter(torch.empty(4 * hidden_size))
            self.bias_hh = nn.Parameter(torch.empty(4 * hidden_size))
        else:
            self.bias_ih = None
            self.bias_hh = None

    def forward(self, input, hx=None):
        if hx is None:
            h = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            c = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        else:
            h, c = hx
        gates = F.linear(h, self.weight_hh, self.bias_hh)
        gates.add_(F.linear(input, self.weight_ih, self.bias_ih))
        i, f, g, o = gates.chunk(4, 1)
        i = i.sigmoid_()
        f = f.sigmoid_()
        g = g.tanh_()
        o = o.sigmoid_()
        c = (f * c).add_(i * g)
        h = o * c.tanh()
        return h, c
