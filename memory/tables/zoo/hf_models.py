"""Hugging Face transformers architectures, as the estimator's interpreter runs them.

Module for module transformers 4.3x's modeling_gpt2.py, modeling_bert.py,
modeling_roberta.py and modeling_distilbert.py, with the attention
transformers picks (uses_sdpa: F.scaled_dot_product_attention, the default
of transformers 4.46 for these families, or the eager softmax(QK^T) under
attn_implementation="eager") (Llama, Mistral and Qwen2 are in hf_llama.py), so
parameter counts match the published checkpoints (gpt2: 124,439,808;
bert-base-uncased: 109,482,240; ...). Each build_<family>(config,
head) returns the model with the head the from_pretrained class names
("lm", "mlm", "cls" or "base"). Forward takes input_ids (and labels) and
returns an object with .loss and .logits, as the real models do.
This file is interpreted by tpf-analyze, never imported by it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def uses_sdpa(config):
    """Whether the model's attention is F.scaled_dot_product_attention:
    config._attn_implementation, as memory/tables/zoo.cpp sets it from
    attn_implementation= or transformers' default for the family."""
    return getattr(config, "_attn_implementation", "eager") != "eager"


class ModelOutput:
    def __init__(self, loss=None, logits=None, last_hidden_state=None):
        self.loss = loss
        self.logits = logits
        self.last_hidden_state = last_hidden_state

    def __getitem__(self, k):
        if isinstance(k, str):
            return getattr(self, k)
        items = [x for x in (self.loss, self.logits, self.last_hidden_state) if x is not None]
        return items[k]


def lm_loss(logits, labels, vocab):
    shift_logits = logits[..., :-1, :].contiguous()
    shift_labels = labels[..., 1:].contiguous()
    return F.cross_entropy(shift_logits.view(-1, vocab), shift_labels.view(-1))


def lm_output(logits, labels, vocab):
    """A causal LM's output: the shifted cross-entropy when labels are given."""
    loss = None
    if labels is not None:
        loss = lm_loss(logits, labels, vocab)
    return ModelOutput(loss=loss, logits=logits)


def cls_output(logits, labels):
    """A classifier's output: cross-entropy when labels are given."""
    loss = None
    if labels is not None:
        loss = F.cross_entropy(logits, labels)
    return ModelOutput(loss=loss, logits=logits)


class PreTrainedModel(nn.Module):
    supports_gradient_checkpointing = True

    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None):
        for m in self.checkpoint_units():
            torch._tpf_checkpoint_module(m)

    def checkpoint_units(self):
        return []

    def tie_weights(self):
        pass

    def resize_token_embeddings(self, n):
        return None

    def num_parameters(self):
        return sum(p.numel() for p in self.parameters())

    # peft's PeftModel methods (get_peft_model returns the model itself, its
    # targeted layers wrapped: zoo/peft_lora.py).
    def print_trainable_parameters(self):
        return None

    def enable_input_require_grads(self):
        return None


# -------------------------------------------------------------------- gpt2

class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        max_positions = config.max_position_embeddings
        self.register_buffer("bias", torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool)).view(
            1, 1, max_positions, max_positions), persistent=False)
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
        self.attn_dropout = nn.Dropout(0.1)
        self.resid_dropout = nn.Dropout(0.1)
        self.sdpa = uses_sdpa(config)

    def _split_heads(self, tensor):
        new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
        return tensor.view(new_shape).permute(0, 2, 1, 3)

    def _merge_heads(self, tensor):
        tensor = tensor.permute(0, 2, 1, 3).contiguous()
        new_shape = tensor.size()[:-2] + (self.num_heads * self.head_dim,)
        return tensor.view(new_shape)

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query = self._split_heads(query)
        key = self._split_heads(key)
        value = self._split_heads(value)
        if self.sdpa:
            # GPT2SdpaAttention: causal, no score matrix.
            attn_output = F.scaled_dot_product_attention(query, key, value, dropout_p=0.1 if self.training else 0.0,
                                                         is_causal=True)
            return self.resid_dropout(self.c_proj(self._merge_heads(attn_output)))
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype)
        query_length = query.size(-2)
        key_length = key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length:key_length, :key_length]
        mask_value = torch.full([], -1e4, dtype=attn_weights.dtype)
        attn_weights = torch.where(causal_mask, attn_weights, mask_value)
        attn_weights = F.softmax(attn_weights, dim=-1)
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)
        attn_output = torch.matmul(attn_weights, value)
        attn_output = self._merge_heads(attn_output)
        return self.resid_dropout(self.c_proj(attn_output))


class GPT2MLP(nn.Module):
    def __init__(self, intermediate_size, config):
        super().__init__()
        self.c_fc = Conv1D(intermediate_size, config.hidden_size)
        self.c_proj = Conv1D(config.hidden_size, intermediate_size)
        self.act = NewGELUActivation()
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states):
        return self.dropout(self.c_proj(self.act(self.c_fc(hidden_states))))


class GPT2Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.hidden_size, eps=1e-5)
        self.attn = GPT2Attention(config)
        self.ln_2 = nn.LayerNorm(config.hidden_size, eps=1e-5)
        self.mlp = GPT2MLP(config.intermediate_size, config)

    def forward(self, hidden_states):
        hidden_states = hidden_states + self.attn(self.ln_1(hidden_states))
        return hidden_states + self.mlp(self.ln_2(hidden_states))


class GPT2Model(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_dim = config.hidden_size
        self.wte = nn.Embedding(config.vocab_size, self.embed_dim)
        self.wpe = nn.Embedding(config.max_position_embeddings, self.embed_dim)
        self.drop = nn.Dropout(0.1)
        self.h = nn.ModuleList([GPT2Block(config) for _ in range(config.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(self.embed_dim, eps=1e-5)

    def checkpoint_units(self):
        return list(self.h)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        seq = input_ids.size(-1)
        position_ids = torch.arange(0, seq, dtype=torch.long).unsqueeze(0)
        hidden_states = self.drop(self.wte(input_ids) + self.wpe(position_ids))
        for block in self.h:
            hidden_states = block(hidden_states)
        return ModelOutput(last_hidden_state=self.ln_f(hidden_states))


class GPT2LMHeadModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = GPT2Model(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight

    def checkpoint_units(self):
        return list(self.transformer.h)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.transformer(input_ids).last_hidden_state
        logits = self.lm_head(hidden)
        loss = None
        if labels is not None:
            loss = lm_loss(logits, labels, self.config.vocab_size)
        return ModelOutput(loss=loss, logits=logits)


class SequenceClassifier(PreTrainedModel):
    """GPT2ForSequenceClassification-style: a score head on the last token."""

    def __init__(self, config, base):
        super().__init__()
        self.config = config
        self.transformer = base
        self.score = nn.Linear(config.hidden_size, config.num_labels, bias=False)

    def checkpoint_units(self):
        return self.transformer.checkpoint_units()

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.transformer(input_ids).last_hidden_state
        logits = self.score(hidden)[:, -1]
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits, labels)
        return ModelOutput(loss=loss, logits=logits)


def build_decoder(config, head, base, causal_lm):
    """A decoder family's from_pretrained head: the bare model ("base"), a
    score head on it ("cls", SequenceClassifier) or the LM (anything else).
    `base` and `causal_lm` build the two from a config."""
    if head == "base":
        return base(config)
    if head == "cls":
        return SequenceClassifier(config, base(config))
    return causal_lm(config)


def build_gpt2(config, head):
    if head == "lm" or head == "mlm":
        return GPT2LMHeadModel(config)
    if head == "cls":
        return SequenceClassifier(config, GPT2Model(config))
    return GPT2Model(config)


# ------------------------------------------------------- bert and roberta

class BertEmbeddings(nn.Module):
    def __init__(self, config, type_vocab, padding_idx, roberta):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=padding_idx)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(type_vocab, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.roberta = roberta
        self.padding_idx = padding_idx
        self.register_buffer("position_ids", torch.arange(config.max_position_embeddings).expand((1, -1)),
                             persistent=False)
        self.register_buffer("token_type_ids", torch.zeros((1, config.max_position_embeddings), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids):
        batch = input_ids.size(0)
        seq = input_ids.size(1)
        if self.roberta:
            mask = input_ids.ne(self.padding_idx).int()
            position_ids = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + self.padding_idx
        else:
            position_ids = self.position_ids[:, :seq]
        token_type_ids = self.token_type_ids[:, :seq].expand(batch, seq)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings += self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(embeddings))


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(0.1)
        self.sdpa = uses_sdpa(config)

    def transpose_for_scores(self, x):
        new_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        return x.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        if self.sdpa:
            # BertSdpaSelfAttention: the additive mask, no score matrix.
            context = F.scaled_dot_product_attention(query_layer, key_layer, value_layer, attn_mask=attention_mask,
                                                     dropout_p=0.1 if self.training else 0.0)
            context = context.permute(0, 2, 1, 3).contiguous()
            return context.view(context.size()[:-2] + (self.all_head_size,))
        scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        scores = scores / math.sqrt(self.attention_head_size)
        scores = scores + attention_mask
        probs = self.dropout(F.softmax(scores, dim=-1))
        context = torch.matmul(probs, value_layer).permute(0, 2, 1, 3).contiguous()
        new_shape = context.size()[:-2] + (self.all_head_size,)
        return context.view(new_shape)


class BertSelfOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def forward(self, hidden_states, attention_mask):
        return self.output(self.self(hidden_states, attention_mask), hidden_states)


class BertIntermediate(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        self.intermediate_act_fn = nn.GELU()

    def forward(self, hidden_states):
        return self.intermediate_act_fn(self.dense(hidden_states))


class BertOutput(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def forward(self, hidden_states, attention_mask):
        attention_output = self.attention(hidden_states, attention_mask)
        return self.output(self.intermediate(attention_output), attention_output)


class BertEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(self, hidden_states, attention_mask):
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states, attention_mask)
        return hidden_states


class BertPooler(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.activation = nn.Tanh()

    def forward(self, hidden_states):
        return self.activation(self.dense(hidden_states[:, 0]))


class BertModel(PreTrainedModel):
    def __init__(self, config, add_pooling_layer=True, roberta=False):
        super().__init__()
        self.config = config
        if roberta:
            self.embeddings = BertEmbeddings(config, 1, 1, True)
        else:
            self.embeddings = BertEmbeddings(config, 2, 0, False)
        self.encoder = BertEncoder(config)
        self.pooler = BertPooler(config) if add_pooling_layer else None

    def checkpoint_units(self):
        return list(self.encoder.layer)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        batch = input_ids.size(0)
        seq = input_ids.size(1)
        if attention_mask is None:
            attention_mask = torch.ones(batch, seq)
        extended = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        hidden = self.embeddings(input_ids)
        hidden = self.encoder(hidden, extended)
        out = ModelOutput(last_hidden_state=hidden)
        if self.pooler is not None:
            out.pooler_output = self.pooler(hidden)
        return out


class BertLMHead(nn.Module):
    def __init__(self, config, roberta):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.act = nn.GELU()
        self.layer_norm = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))

    def forward(self, hidden):
        return self.decoder(self.layer_norm(self.act(self.dense(hidden)))) + self.bias


class BertForMaskedLM(PreTrainedModel):
    def __init__(self, config, roberta=False):
        super().__init__()
        self.config = config
        self.bert = BertModel(config, add_pooling_layer=False, roberta=roberta)
        self.cls = BertLMHead(config, roberta)
        self.cls.decoder.weight = self.bert.embeddings.word_embeddings.weight

    def checkpoint_units(self):
        return self.bert.checkpoint_units()

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.bert(input_ids, attention_mask).last_hidden_state
        logits = self.cls(hidden)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, self.config.vocab_size), labels.view(-1))
        return ModelOutput(loss=loss, logits=logits)


class RobertaClassificationHead(nn.Module):
    """RoBERTa's `classifier`: dense, tanh, out_proj on the first token (the
    module modules_to_save=["classifier"] names)."""

    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(0.1)
        self.out_proj = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, features):
        x = self.dropout(features[:, 0, :])
        x = torch.tanh(self.dense(x))
        return self.out_proj(self.dropout(x))


class BertForSequenceClassification(PreTrainedModel):
    def __init__(self, config, roberta=False):
        super().__init__()
        self.config = config
        self.roberta = roberta
        if roberta:
            self.bert = BertModel(config, add_pooling_layer=False, roberta=True)
            self.classifier = RobertaClassificationHead(config)
        else:
            self.bert = BertModel(config)
            self.dropout = nn.Dropout(0.1)
            self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def checkpoint_units(self):
        return self.bert.checkpoint_units()

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        out = self.bert(input_ids, attention_mask)
        if self.roberta:
            logits = self.classifier(out.last_hidden_state)
        else:
            logits = self.classifier(self.dropout(out.pooler_output))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits, labels)
        return ModelOutput(loss=loss, logits=logits)


def build_bert(config, head):
    if head == "mlm" or head == "lm":
        return BertForMaskedLM(config)
    if head == "cls":
        return BertForSequenceClassification(config)
    return BertModel(config)


def build_roberta(config, head):
    if head == "mlm" or head == "lm":
        return BertForMaskedLM(config, roberta=True)
    if head == "cls":
        return BertForSequenceClassification(config, roberta=True)
    return BertModel(config, roberta=True)


# -------------------------------------------------------------- distilbert

class DistilAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_heads = config.num_attention_heads
        self.dim = config.hidden_size
        self.dropout = nn.Dropout(0.1)
        self.q_lin = nn.Linear(self.dim, self.dim)
        self.k_lin = nn.Linear(self.dim, self.dim)
        self.v_lin = nn.Linear(self.dim, self.dim)
        self.out_lin = nn.Linear(self.dim, self.dim)
        self.sdpa = uses_sdpa(config)

    def forward(self, x, mask):
        bs = x.size(0)
        dph = self.dim // self.n_heads
        q = self.q_lin(x).view(bs, -1, self.n_heads, dph).transpose(1, 2)
        k = self.k_lin(x).view(bs, -1, self.n_heads, dph).transpose(1, 2)
        v = self.v_lin(x).view(bs, -1, self.n_heads, dph).transpose(1, 2)
        if self.sdpa:
            # DistilBertSdpaAttention: no score matrix.
            context = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.1 if self.training else 0.0)
            return self.out_lin(context.transpose(1, 2).contiguous().view(bs, -1, self.n_heads * dph))
        q = q / math.sqrt(dph)
        scores = torch.matmul(q, k.transpose(2, 3))
        scores = scores.masked_fill(mask, -1e4)
        weights = self.dropout(F.softmax(scores, dim=-1))
        context = torch.matmul(weights, v)
        context = context.transpose(1, 2).contiguous().view(bs, -1, self.n_heads * dph)
        return self.out_lin(context)


class DistilFFN(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dropout = nn.Dropout(0.1)
        self.lin1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.lin2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.activation = nn.GELU()

    def forward(self, x):
        return self.dropout(self.lin2(self.activation(self.lin1(x))))


class DistilBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = DistilAttention(config)
        self.sa_layer_norm = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.ffn = DistilFFN(config)
        self.output_layer_norm = nn.LayerNorm(config.hidden_size, eps=1e-12)

    def forward(self, x, mask):
        sa = self.sa_layer_norm(self.attention(x, mask) + x)
        return self.output_layer_norm(self.ffn(sa) + sa)


class DistilEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, input_ids):
        seq = input_ids.size(1)
        position_ids = torch.arange(seq, dtype=torch.long).unsqueeze(0).expand_as(input_ids)
        x = self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(x))


class DistilBertModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = DistilEmbeddings(config)
        self.layer = nn.ModuleList([DistilBlock(config) for _ in range(config.num_hidden_layers)])

    def checkpoint_units(self):
        return list(self.layer)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        batch = input_ids.size(0)
        seq = input_ids.size(1)
        mask = torch.zeros(batch, 1, 1, seq, dtype=torch.bool)
        x = self.embeddings(input_ids)
        for block in self.layer:
            x = block(x, mask)
        return ModelOutput(last_hidden_state=x)


class DistilBertForSequenceClassification(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.distilbert = DistilBertModel(config)
        self.pre_classifier = nn.Linear(config.hidden_size, config.hidden_size)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.dropout = nn.Dropout(0.2)

    def checkpoint_units(self):
        return self.distilbert.checkpoint_units()

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.distilbert(input_ids).last_hidden_state
        x = F.relu(self.pre_classifier(hidden[:, 0]))
        logits = self.classifier(self.dropout(x))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits, labels)
        return ModelOutput(loss=loss, logits=logits)


def build_distilbert(config, head):
    if head == "cls":
        return DistilBertForSequenceClassification(config)
    return DistilBertModel(config)
