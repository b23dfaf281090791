#!/usr/bin/env python3
"""Generates memory/tables/hf_litgpt.def from litgpt's published model configs.

Usage: hf_table.py GIT_DIR [COMMIT] [HAND_TABLE] > memory/tables/hf_litgpt.def

GIT_DIR is a clone (bare or not) of Lightning-AI/litgpt. litgpt's
litgpt/config.py lists, for each Hugging Face checkpoint it converts, the
checkpoint's sizes (its comments link each row to the checkpoint's
config.json): n_layer, n_embd, n_head, n_query_groups, head_size,
intermediate_size, padded_vocab_size (the rows of the checkpoint's
embedding; litgpt loads the Hub weights into it, so it is the checkpoint's
vocab_size), attn_bias, n_expert. The generator evaluates the data part of
that file (the `configs` lists and the loops that add the -chat/-Instruct/
-deduped copies; litgpt's Config class is not run), redoes Config's
defaults (__post_init__: head_size, n_query_groups, the padded vocabulary,
intermediate_size), keeps the families the estimator's zoo builds and
prints one row per Hub name. No litgpt code is imported or copied.

Each row carries the parameter count of the transformers model that loads
the checkpoint (<Family>ForCausalLM), computed here from the sizes with
transformers' module layout (modeling_llama.py, modeling_gemma.py,
modeling_gemma2.py, modeling_mixtral.py, modeling_gpt_neox.py,
modeling_phi.py); the zoo builders must reproduce it exactly
(test/memory/hf_table_test.cpp builds every row).

HAND_TABLE (default memory/tables/hf_configs.def) is the hand-written table of
the same names; a name in both is left out here, and its sizes must agree
(the generator fails otherwise), so the two tables cannot drift apart.
"""
import ast
import copy
import re
import subprocess
import sys

CONFIG_PATH = 'litgpt/config.py'

# Which Hub names the zoo builds, and with which builder. Checked in order.
# Gemma 3 (query/key norms), Qwen3 (the same), Falcon, OLMo, StableLM and
# the others litgpt lists have layouts the zoo does not build.
FAMILIES = [
    (r'^meta-llama/(Llama-2-|Meta-Llama-3-|Meta-Llama-3\.1-|Llama-3\.[123]-)', 'llama'),
    (r'^codellama/CodeLlama-', 'llama'),
    (r'^google/gemma-2-', 'gemma2'),
    (r'^google/gemma-(2b|7b)', 'gemma'),
    (r'^microsoft/phi-(1_5|2)$', 'phi'),
    (r'^microsoft/(Phi-3|Phi-3\.5-mini|phi-4$)', 'llama'),
    (r'^mistralai/Mixtral-', 'mixtral'),
    (r'^mistralai/(Mistral-|mathstral-)', 'llama'),
    (r'^Qwen/Qwen2\.5-', 'llama'),
    (r'^EleutherAI/pythia-', 'neox'),
    (r'^HuggingFaceTB/SmolLM2-', 'llama'),
    (r'^TinyLlama/', 'llama'),
]

# litgpt does not record tie_word_embeddings (its converter copies the
# embedding into lm_head when a checkpoint has none). These are the
# checkpoints whose config.json sets it: every Gemma and Gemma 2, Llama
# 3.2 1B/3B, the Qwen2.5 checkpoints under 7B (0.5B, 1.5B, 3B, with their
# Coder and Math variants) and SmolLM2.
TIED = [r'^google/gemma', r'^meta-llama/Llama-3\.2-(1B|3B)', r'^Qwen/Qwen2\.5-(Coder-|Math-)?(0\.5B|1\.5B|3B)',
        r'^HuggingFaceTB/SmolLM2-']


def find_multiple(n, k):
    return n if n % k == 0 else n + k - (n % k)


def litgpt_rows(text):
    """The config dicts litgpt's module-level code builds: every statement
    from the first `configs = [` on, except function and class
    definitions, evaluated with deepcopy only."""
    tree = ast.parse(text)
    body, started = [], False
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == 'configs' for t in node.targets):
            started = True
        if started and not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            body.append(node)
    ns = {'deepcopy': copy.deepcopy, 'dict': dict, 'range': range, 'list': list, 'len': len}
    exec(compile(ast.Module(body=body, type_ignores=[]), CONFIG_PATH, 'exec'), ns)  # noqa: S102 (data only)
    return ns['configs']


def derive(c):
    """litgpt's Config defaults and __post_init__, on the sizes only."""
    d = dict(n_layer=16, n_embd=4096, vocab_size=50254, padding_multiple=512, padded_vocab_size=None,
             n_head=32, head_size=None, n_query_groups=None, attn_bias=False, bias=True,
             intermediate_size=None, mlp_class_name='GptNeoxMLP', n_expert=0, n_expert_per_token=0,
             block_size=4096, lm_head_bias=False, post_attention_norm=False, post_mlp_norm=False,
             norm_qk=False, shared_attention_norm=False, n_shared_expert=None, latent_attention=None,
             parallel_residual=True, norm_class_name='LayerNorm')
    d.update(c)
    if d['head_size'] is None:
        d['head_size'] = d['n_embd'] // d['n_head']
    if d['padded_vocab_size'] is None:
        d['padded_vocab_size'] = find_multiple(d['vocab_size'], d['padding_multiple'])
    if d['n_query_groups'] is None:
        d['n_query_groups'] = d['n_head']
    if d['intermediate_size'] is None:
        d['intermediate_size'] = 4 * d['n_embd']
    return d


def layout_ok(family, d):
    """The row has the module layout the family's builder makes."""
    if d['norm_qk'] or d['latent_attention'] or d['n_shared_expert']:
        return False
    if family in ('llama', 'gemma', 'gemma2', 'mixtral'):
        want_mlp = {'llama': 'LLaMAMLP', 'gemma': 'GemmaMLP', 'gemma2': 'GemmaMLP', 'mixtral': 'LLaMAMoE'}[family]
        post = family == 'gemma2'
        return (d['mlp_class_name'] == want_mlp and d['norm_class_name'] == 'RMSNorm' and not d['parallel_residual']
                and not d['bias'] and d['post_attention_norm'] == post and d['post_mlp_norm'] == post
                and not d['lm_head_bias'])
    if family == 'neox':
        return (d['mlp_class_name'] == 'GptNeoxMLP' and d['parallel_residual'] and d['bias']
                and not d['shared_attention_norm'] and d['norm_class_name'] == 'LayerNorm')
    if family == 'phi':
        return (d['mlp_class_name'] == 'GptNeoxMLP' and d['parallel_residual'] and d['bias']
                and d['shared_attention_norm'] and d['lm_head_bias'] and d['n_query_groups'] == d['n_head'])
    return False


def hf_params(family, d, tied):
    """Parameters of transformers' <Family>ForCausalLM with these sizes."""
    L, H, V, I = d['n_layer'], d['n_embd'], d['padded_vocab_size'], d['intermediate_size']
    nh, kv, hd = d['n_head'], d['n_query_groups'], d['head_size']
    emb = V * H
    head = 0 if tied else V * H
    if family in ('llama', 'gemma', 'gemma2', 'mixtral'):
        qb = 1 if d['attn_bias'] else 0
        attn = H * nh * hd + qb * nh * hd + 2 * (H * kv * hd + qb * kv * hd) + nh * hd * H
        if family == 'mixtral':
            mlp = H * d['n_expert'] + d['n_expert'] * 3 * H * I
        else:
            mlp = 3 * H * I
        norms = (4 if family == 'gemma2' else 2) * H
        return emb + L * (attn + mlp + norms) + H + head
    if family == 'neox':
        layer = 4 * H + (H * 3 * H + 3 * H) + (H * H + H) + (H * I + I) + (I * H + H)
        return emb + L * layer + 2 * H + head
    if family == 'phi':
        layer = 2 * H + 4 * (H * H + H) + (H * I + I) + (I * H + H)
        return emb + L * layer + 2 * H + head + V
    raise ValueError(family)


def hand_rows(path):
    rows = {}
    pat = re.compile(r'^TPF_HF\("([^"]+)", "(\w+)", (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\w+), (\w+)\)')
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = pat.match(line)
            if m:
                n = [int(x) for x in m.group(3, 4, 5, 6, 7, 8)]
                rows[m.group(1)] = (m.group(2), *n, m.group(10) == 'true', m.group(11) == 'true')
    return rows


def main():
    git_dir = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else 'HEAD'
    hand_path = sys.argv[3] if len(sys.argv) > 3 else 'memory/tables/hf_configs.def'
    sha = subprocess.check_output(['git', '--git-dir=' + git_dir, 'rev-parse', commit + '^{commit}']).decode().strip()
    date = subprocess.check_output(['git', '--git-dir=' + git_dir, 'show', '-s', '--format=%cs', sha]).decode().strip()
    text = subprocess.check_output(['git', '--git-dir=' + git_dir, 'show', sha + ':' + CONFIG_PATH]).decode('utf-8')
    hand = hand_rows(hand_path)
    out, seen, skipped = [], set(), {}
    for c in litgpt_rows(text):
        hf = c.get('hf_config', {})
        name = '%s/%s' % (hf.get('org', ''), hf.get('name', ''))
        family = next((f for pat, f in FAMILIES if re.search(pat, name)), None)
        if family is None or name in seen:
            continue
        d = derive(c)
        if not layout_ok(family, d):
            skipped[name] = 'layout differs from the %s builder' % family
            continue
        seen.add(name)
        tied = any(re.search(p, name) for p in TIED)
        bias = bool(d['attn_bias']) or family in ('neox', 'phi')
        row = (family if family != 'mixtral' else 'mixtral', d['n_layer'], d['n_embd'], d['n_head'],
               d['n_query_groups'], d['intermediate_size'], d['padded_vocab_size'], tied, bias)
        if name in hand:
            h = hand[name]
            mine = ('llama', *row[1:])
            if family != 'llama' or (h[0], *h[1:6], h[6], h[7], h[8]) != mine:
                sys.exit('hf_table.py: %s differs from %s: %r vs %r' % (name, hand_path, h, mine))
            skipped[name] = 'in %s (sizes agree)' % hand_path
            continue
        n = hf_params(family, d, tied)
        out.append('TPF_HF_GEN("%s", "%s", "%s", %d, %d, %d, %d, %d, %d, %d, %d, %s, %s, %d, %d, %d)' % (
            name, c['name'], family, d['n_layer'], d['n_embd'], d['n_head'], d['n_query_groups'], d['head_size'],
            d['intermediate_size'], d['padded_vocab_size'], d['block_size'], 'true' if tied else 'false',
            'true' if bias else 'false', d['n_expert'], d['n_expert_per_token'], n))
    print('// Generated by tools/hf_table.py from Lightning-AI/litgpt %s (%s), %s.' % (sha, date, CONFIG_PATH))
    print('// Do not edit; regenerate: tools/hf_table.py LITGPT_GIT_DIR %s > memory/tables/hf_litgpt.def' % sha[:12])
    print('// TPF_HF_GEN(hub_name, litgpt_name, family, layers, hidden, heads, kv_heads,')
    print('//            head_dim, intermediate, vocab, max_positions, tied, qkv_bias,')
    print('//            experts, experts_per_token, params)')
    print('// vocab is the checkpoint\'s embedding rows (litgpt\'s padded_vocab_size);')
    print('// max_positions is litgpt\'s block_size (no parameter in these families);')
    print('// params is transformers\' <Family>ForCausalLM count for these sizes.')
    print('// %d rows; left out: %d names (in memory/tables/hf_configs.def or another layout).' % (len(out), len(skipped)))
    for line in out:
        print(line)
    for name, why in sorted(skipped.items()):
        print('hf_table.py: left out %s: %s' % (name, why), file=sys.stderr)


if __name__ == '__main__':
    main()
