#!/usr/bin/env python3
"""Generates memory/tables/timm_models.def from timm's own published sources.

Usage: timm_table.py GIT_DIR [COMMIT] > memory/tables/timm_models.def

GIT_DIR is a clone (bare or not) of huggingface/pytorch-image-models. The
generator reads, at COMMIT, the model files of the families the estimator's
zoo builds (timm/models/{resnet,efficientnet,mobilenetv3,convnext,
vision_transformer,deit,swin_transformer,regnet}.py), their registered
model functions (`@register_model`), their architecture arguments
(`model_args = dict(...)`, the `_gen_*` calls and their `arch_def` block
strings, regnet's `model_cfgs`), each name's default pretrained config
(`default_cfgs`: num_classes, input_size) and the published parameter
counts (results/results-imagenet.csv, results/benchmark-infer-*.csv,
millions with two decimals). The channel arithmetic timm does at build time
(efficientnet's round_channels and depth scaling, regnet's width
quantization) is redone here, so the zoo builders (memory/tables/zoo/
timm_models.py) get plain per-block widths. No timm code is imported or
copied; rows whose arguments the zoo does not build are left out and
counted on stderr with the reason.
"""
import ast
import csv
import io
import math
import re
import subprocess
import sys

FILES = ['resnet', 'efficientnet', 'mobilenetv3', 'convnext', 'vision_transformer', 'deit',
         'swin_transformer', 'regnet']


class Source:
    def __init__(self, git_dir, commit):
        self.git_dir, self.commit = git_dir, commit

    def show(self, path):
        return subprocess.check_output(['git', '--git-dir=' + self.git_dir, 'show',
                                        self.commit + ':' + path]).decode('utf-8')

    def ls(self, path):
        out = subprocess.check_output(['git', '--git-dir=' + self.git_dir, 'ls-tree', '--name-only',
                                       self.commit, path + '/']).decode('utf-8')
        return out.split()


class Skip(Exception):
    """A registered name whose arguments the zoo does not build."""


# ------------------------------------------------------------- evaluation

def namespace(tree):
    """Every name the file uses, bound to a placeholder string, so that the
    config helpers and argument expressions evaluate without timm."""
    ns = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            ns[node.id] = '<%s>' % node.id
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            ns[node.value.id] = Placeholder(node.value.id)
    ns.update({'dict': dict, 'partial': Placeholder('partial'), 'max': max, 'min': min, 'round': round,
               'int': int, 'float': float, 'True': True, 'False': False, 'None': None})
    return ns


class Placeholder:
    def __init__(self, name):
        self.name = name

    def __getattr__(self, attr):
        return Placeholder(self.name + '.' + attr)

    def __call__(self, *a, **k):
        return Placeholder(self.name + '()')

    def __repr__(self):
        return '<%s>' % self.name


def evaluate(node, ns):
    return eval(compile(ast.Expression(node), '<timm>', 'eval'), dict(ns))


def default_cfgs(tree, ns):
    """{'arch.tag': cfg dict} in source order, with each file's _cfg helpers run."""
    local = dict(ns)
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and 'cfg' in fn.name and not fn.decorator_list:
            fn.returns = None  # annotations name typing helpers the namespace lacks
            for a in fn.args.args + fn.args.kwonlyargs + [fn.args.kwarg, fn.args.vararg]:
                if a is not None:
                    a.annotation = None
            mod = ast.Module(body=[fn], type_ignores=[])
            exec(compile(mod, '<timm>', 'exec'), local)
    for st in tree.body:
        if isinstance(st, ast.Assign) and getattr(st.targets[0], 'id', '') == 'default_cfgs':
            call = st.value
            d = call.args[0] if isinstance(call, ast.Call) else call
            out = {}
            for k, v in zip(d.keys, d.values):
                out[ast.literal_eval(k)] = eval(compile(ast.Expression(v), '<timm>', 'eval'), local)
            return out
    return {}


def registered(tree, ns):
    """(name, model_args, builder call name, builder call kwargs, function) per @register_model."""
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        if not any(getattr(d, 'id', None) == 'register_model' for d in fn.decorator_list):
            continue
        model_args, call = {}, None
        for st in fn.body:
            if isinstance(st, ast.Assign) and getattr(st.targets[0], 'id', '') == 'model_args':
                model_args = {k.arg: k.value for k in st.value.keywords}
            value = st.value if isinstance(st, (ast.Assign, ast.Return)) else None
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id.startswith('_'):
                call = value
        if call is None:
            continue
        kwargs = {k.arg: k.value for k in call.keywords if k.arg}
        # _gen_mobilenet_v2('mobilenetv2_050', 0.5, ...): positional
        # arguments after the variant, by the generator's parameter names.
        gen = next((g for g in tree.body if isinstance(g, ast.FunctionDef) and g.name == call.func.id), None)
        if gen is not None:
            for pname, arg in zip([a.arg for a in gen.args.args][1:], call.args[1:]):
                kwargs[pname] = arg
        setdefaults = {}
        for st in fn.body:  # kwargs.setdefault('bn_eps', ...) before the call
            if (isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
                    and ast.unparse(st.value.func) == 'kwargs.setdefault'):
                setdefaults[ast.literal_eval(st.value.args[0])] = st.value.args[1]
        yield fn.name, model_args, call.func.id, kwargs, setdefaults


def lit(node, ns):
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    try:
        return evaluate(node, ns)
    except Exception as e:
        raise Skip('argument %s' % ast.unparse(node)) from e


# ------------------------------------------------------- timm's arithmetic

def make_divisible(v, divisor=8, min_value=None, round_limit=.9):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < round_limit * v:
        new_v += divisor
    return new_v


def round_channels(channels, multiplier=1.0, divisor=8):
    if not multiplier:
        return channels
    return make_divisible(channels * multiplier, divisor)


ACTS = {'re': 'relu', 'r6': 'relu6', 'hs': 'hard_swish', 'sw': 'swish'}


def decode_block(s):
    ops = s.split('_')
    opts, act, skip = {}, None, None
    for op in ops[1:]:
        if op == 'noskip':
            skip = False
        elif op == 'skip':
            skip = True
        elif op.startswith('n'):
            if op[1:] not in ACTS:
                raise Skip('block activation ' + op)
            act = ACTS[op[1:]]
        else:
            m = re.split(r'(\d.*)', op)
            if len(m) >= 2:
                opts[m[0]] = m[1]
    bt = ops[0]
    if bt not in ('ir', 'ds', 'cn') or set(opts) - {'r', 'k', 's', 'e', 'c', 'se'}:
        raise Skip('block ' + s)
    if '.' in opts['k'] or not opts['k'].isdigit():
        raise Skip('mixed kernel ' + s)
    return dict(type=bt, repeat=int(opts['r']), k=int(opts['k']), s=int(opts['s']),
                e=float(opts.get('e', 1.0)), c=int(opts['c']), se=float(opts.get('se', 0.)),
                act=act, noskip=skip is False, skip=skip is True)


def scale_stage(blocks, mult, trunc='ceil'):
    repeats = [b['repeat'] for b in blocks]
    num = sum(repeats)
    scaled = max(1, round(num * mult)) if trunc == 'round' else int(math.ceil(num * mult))
    out = []
    for r in repeats[::-1]:
        rs = max(1, round(r / num * scaled))
        out.append(rs)
        num -= r
        scaled -= rs
    out = out[::-1]
    res = []
    for b, rep in zip(blocks, out):
        res.extend([dict(b) for _ in range(rep)])
    return res


def build_blocks(arch_def, depth_mult, chs_mult, stem, se_from_exp, se_round, act, fix_first_last=False):
    """The block list EfficientNetBuilder makes: per block (type, kernel,
    stride, in, mid, out, se reduced chs, act, skip)."""
    stages, in_chs = [], stem
    for i, strings in enumerate(arch_def):
        blocks = [decode_block(s) for s in strings]
        mult = 1.0 if fix_first_last and (i == 0 or i == len(arch_def) - 1) else depth_mult
        stage = []
        for j, b in enumerate(scale_stage(blocks, mult)):
            stride = b['s'] if j == 0 else 1
            out = round_channels(b['c'], chs_mult)
            if b['type'] == 'ir':
                mid = make_divisible(in_chs * b['e'])
            else:
                mid = in_chs
            se = 0
            if b['se']:
                ratio = b['se'] if se_from_exp else b['se'] / (b['e'] if b['type'] == 'ir' else 1.0)
                se = round_channels(mid * ratio) if se_round else round(mid * ratio)
            if b['type'] == 'cn':
                skip = b['skip'] and stride == 1 and in_chs == out
            else:
                skip = stride == 1 and in_chs == out and not b['noskip']
            stage.append((b['type'], b['k'], stride, in_chs, mid, out, se, b['act'] or act, skip))
            in_chs = out
        stages.append(tuple(stage))
    return tuple(stages), in_chs


def regnet_stages(cfg):
    """generate_regnet + adjust_widths_groups_comp, in float32 as timm does it with torch."""
    import numpy as np
    f32 = np.float32
    depth, w0, wa, wm, gs = cfg['depth'], cfg['w0'], cfg['wa'], cfg['wm'], cfg['group_size']
    br, min_ratio = cfg.get('bottle_ratio', 1.), cfg.get('group_min_ratio', 0.)
    cont = np.arange(depth, dtype=f32) * f32(wa) + f32(w0)
    exps = np.round(np.log(cont / f32(w0)) / f32(math.log(wm)))
    widths = (np.round((f32(w0) * np.power(f32(wm), exps)) / f32(8)) * f32(8)).astype(np.int32).tolist()
    uniq = sorted(set(widths))
    depths = [widths.count(w) for w in uniq]
    bot = [int(w * br) for w in uniq]
    groups = [min(gs, b) for b in bot]
    if min_ratio:
        bot = [make_divisible(b, g, round_limit=min_ratio) for b, g in zip(bot, groups)]
    else:
        bot = [int(round(b / g) * g) for b, g in zip(bot, groups)]
    uniq = [int(b / br) for b in bot]
    return tuple(uniq), tuple(depths), tuple(groups)


# ---------------------------------------------------------------- families

def gen_arch_defs(tree):
    """arch_def literal(s) of each _gen_* function: a list of (conditions, arch_def)."""
    out = {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not fn.name.startswith('_gen_'):
            continue
        found = []

        def walk(stmts, conds):
            for st in stmts:
                if isinstance(st, ast.If):
                    walk(st.body, conds + [(st.test, True)])
                    walk(st.orelse, conds + [(st.test, False)])
                elif isinstance(st, ast.Assign) and getattr(st.targets[0], 'id', '') == 'arch_def':
                    try:
                        found.append((conds, ast.literal_eval(st.value)))
                    except ValueError:
                        found.append((conds, None))  # built in code: not decoded
        walk(fn.body, [])
        out[fn.name] = found
    return out


def pick_arch_def(found, variant):
    for conds, arch in found:
        ok = True
        for test, want in conds:
            if not (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.In)
                    and ast.unparse(test.comparators[0]) == 'variant'):
                raise Skip('arch_def condition ' + ast.unparse(test))
            if (ast.literal_eval(test.left) in variant) != want:
                ok = False
        if ok:
            if arch is None:
                raise Skip('arch_def built in code')
            return arch
    raise Skip('no arch_def')


def resnet_args(name, ma, call, kw, sd, ns):
    a = {k: lit(v, ns) for k, v in ma.items()}
    allowed = {'block', 'layers', 'stem_width', 'stem_type', 'avg_down', 'cardinality', 'base_width',
               'block_args'}
    if set(a) - allowed or 'pruned' in name:
        raise Skip('resnet args %s' % sorted(set(a) - allowed))
    out = {'block': {'<BasicBlock>': 'basic', '<Bottleneck>': 'bottleneck'}.get(a.pop('block'))}
    if out['block'] is None:
        raise Skip('resnet block')
    ba = a.pop('block_args', None) or {}
    if set(ba) - {'attn_layer'} or ba.get('attn_layer', 'se') not in ('se', 'eca'):
        raise Skip('resnet block_args')
    out.update(a)
    if ba:
        out['attn_layer'] = ba['attn_layer']
    if out.get('stem_type', '') not in ('', 'deep', 'deep_tiered'):
        raise Skip('stem_type')
    return 'resnet', out


VIT_KEYS = {'patch_size', 'embed_dim', 'depth', 'num_heads', 'mlp_ratio', 'qkv_bias', 'class_token',
            'global_pool', 'fc_norm', 'no_embed_class', 'reg_tokens', 'init_values', 'pre_norm', 'img_size',
            'norm_layer', 'act_layer', 'dynamic_img_size'}


def vit_args(name, ma, call, kw, sd, ns):
    if call not in ('_create_vision_transformer', '_create_deit'):
        raise Skip('vit builder ' + call)
    if set(ma) - VIT_KEYS:
        raise Skip('vit args %s' % sorted(set(ma) - VIT_KEYS))
    # partial(LayerNorm, eps=...): the same parameters as the default LayerNorm
    if 'norm_layer' in ma and not ast.unparse(ma['norm_layer']).startswith('partial(LayerNorm'):
        raise Skip('vit norm')
    a = {k: lit(v, ns) for k, v in ma.items() if k != 'norm_layer'}
    a.pop('dynamic_img_size', None)
    if a.pop('act_layer', 'gelu') not in ('gelu', 'quick_gelu', 'gelu_tanh'):
        raise Skip('vit act')
    if a.get('global_pool', 'token') not in ('token', 'avg'):
        raise Skip('vit pool %s' % a.get('global_pool'))
    if isinstance(a.get('img_size'), (tuple, list)):
        raise Skip('vit rectangular')
    if 'patch_size' not in a:
        a['patch_size'] = 16
    if kw.get('distilled') is not None and lit(kw['distilled'], ns):
        a['distilled'] = True
    if 'mlp_ratio' in a:
        a['mlp_ratio'] = float(a['mlp_ratio'])
    return 'vit', a


def convnext_args(name, ma, call, kw, sd, ns):
    a = {k: lit(v, ns) for k, v in ma.items()}
    allowed = {'depths', 'dims', 'conv_mlp', 'head_norm_first', 'use_grn', 'ls_init_value', 'head_hidden_size'}
    if set(a) - allowed:
        raise Skip('convnext args %s' % sorted(set(a) - allowed))
    a.pop('conv_mlp', None)  # a 1x1 conv or a Linear: the same parameters
    a['depths'], a['dims'] = tuple(a['depths']), tuple(a['dims'])
    return 'convnext', a


def swin_args(name, ma, call, kw, sd, ns):
    a = {k: lit(v, ns) for k, v in ma.items()}
    allowed = {'patch_size', 'window_size', 'embed_dim', 'depths', 'num_heads'}
    if set(a) - allowed or call != '_create_swin_transformer':
        raise Skip('swin args %s' % sorted(set(a) - allowed))
    return 'swin', a


def regnet_args(name, cfgs, ns):
    if name not in cfgs:
        raise Skip('regnet cfg')
    c = cfgs[name]
    allowed = {'w0', 'wa', 'wm', 'group_size', 'depth', 'bottle_ratio', 'se_ratio', 'group_min_ratio',
               'stem_width', 'downsample', 'linear_out', 'num_features'}
    if set(c) - allowed or c.get('downsample', 'conv1x1') != 'conv1x1':
        raise Skip('regnet args %s' % sorted(set(c) - allowed))
    widths, depths, groups = regnet_stages(c)
    if len(widths) != 4:
        raise Skip('regnet stages')
    return 'regnet', dict(widths=widths, depths=depths, group_sizes=groups,
                          bottle_ratio=float(c.get('bottle_ratio', 1.)), se_ratio=float(c.get('se_ratio', 0.)),
                          stem_width=c.get('stem_width', 32), linear_out=bool(c.get('linear_out', False)),
                          num_features=c.get('num_features', 0))


def effnet_args(name, ma, call, kw, sd, ns, arch_defs):
    k = {n: lit(v, ns) for n, v in kw.items() if n != 'pretrained'}
    if set(sd) - {'bn_eps', 'pad_type'}:
        raise Skip('setdefault %s' % sorted(sd))
    cm, dm = k.pop('channel_multiplier', 1.0), k.pop('depth_multiplier', 1.0)
    if not isinstance(cm, (int, float)) or not isinstance(dm, (int, float)):
        raise Skip('per-stage multipliers')
    cm, dm = float(cm), float(dm)
    if call == '_gen_efficientnet':
        if set(k) - {'group_size'} or k.get('group_size') or name.startswith('efficientnet_b0_g'):
            raise Skip('efficientnet args %s' % sorted(k))
        stem, act, nf = round_channels(32, cm), 'swish', round_channels(1280, cm)
        stages, _ = build_blocks(pick_arch_def(arch_defs[call], name), dm, cm, stem, False, False, act)
        return 'efficientnet', dict(stem=stem, stages=stages, num_features=nf, act=act)
    if call == '_gen_efficientnet_lite':
        if k:
            raise Skip('lite args %s' % sorted(k))
        stem, act = 32, 'relu6'
        stages, _ = build_blocks(pick_arch_def(arch_defs[call], name), dm, cm, stem, False, False, act, True)
        return 'efficientnet', dict(stem=stem, stages=stages, num_features=1280, act=act)
    if call == '_gen_mobilenet_v2':
        fix = bool(k.pop('fix_stem_head', False))
        if k:
            raise Skip('mobilenetv2 args %s' % sorted(k))
        stem, act = 32 if fix else round_channels(32, cm), 'relu6'
        nf = 1280 if fix else max(1280, round_channels(1280, cm))
        stages, _ = build_blocks(pick_arch_def(arch_defs[call], name), dm, cm, stem, False, False, act, fix)
        return 'efficientnet', dict(stem=stem, stages=stages, num_features=nf, act=act)
    if call == '_gen_mobilenet_v3':
        if k:
            raise Skip('mobilenetv3 args %s' % sorted(k))
        arch = pick_arch_def(arch_defs[call], name)
        act = 'relu' if 'minimal' in name else 'hard_swish'
        stem = 16 if cm < 0.75 else round_channels(16, cm)
        stages, _ = build_blocks(arch, dm, cm, stem, True, True, act)
        return 'mobilenetv3', dict(stem=stem, stages=stages, num_features=1280 if 'small' not in name else 1024,
                                   act=act)
    raise Skip('builder ' + call)


# --------------------------------------------------------------- counts

def published(src):
    """{name: millions} from the results tables: tagged names from
    results-imagenet.csv, untagged from the newest benchmark files first."""
    tagged, plain = {}, {}
    for row in csv.DictReader(io.StringIO(src.show('results/results-imagenet.csv'))):
        tagged.setdefault(row['model'], float(row['param_count'].replace(',', '')))
    bench = sorted((p for p in src.ls('results') if 'benchmark-infer' in p), reverse=True)
    for path in bench:
        for row in csv.DictReader(io.StringIO(src.show(path))):
            if row.get('param_count'):
                plain.setdefault(row['model'], float(row['param_count'].replace(',', '')))
    return tagged, plain


def fmt(v):
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (tuple, list)):
        inner = ', '.join(fmt(x) for x in v)
        return '(' + inner + (',)' if len(v) == 1 else ')')
    return repr(v)


def main():
    git_dir = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else 'HEAD'
    src = Source(git_dir, commit)
    full = subprocess.check_output(['git', '--git-dir=' + git_dir, 'rev-parse', commit]).decode().strip()
    version = re.search(r"'(.*)'", src.show('timm/version.py')).group(1)
    tagged, plain = published(src)
    rows, tags, skipped = [], [], {}
    for f in FILES:
        tree = ast.parse(src.show('timm/models/%s.py' % f))
        ns = namespace(tree)
        cfgs = default_cfgs(tree, ns)
        arch_defs = gen_arch_defs(tree)
        regnet_cfgs = {}
        if f == 'regnet':
            for st in tree.body:
                if isinstance(st, ast.Assign) and getattr(st.targets[0], 'id', '') == 'model_cfgs':
                    for kwd in st.value.keywords:
                        regnet_cfgs[kwd.arg] = {k.arg: lit(k.value, ns) for k in kwd.value.keywords}
        for name, ma, call, kw, sd in registered(tree, ns):
            try:
                if name.startswith('test_'):
                    raise Skip('test model')
                if f == 'resnet':
                    fam, args = resnet_args(name, ma, call, kw, sd, ns)
                elif f in ('vision_transformer', 'deit'):
                    fam, args = vit_args(name, ma, call, kw, sd, ns)
                elif f == 'convnext':
                    fam, args = convnext_args(name, ma, call, kw, sd, ns)
                elif f == 'swin_transformer':
                    fam, args = swin_args(name, ma, call, kw, sd, ns)
                elif f == 'regnet':
                    fam, args = regnet_args(name, regnet_cfgs, ns)
                else:
                    fam, args = effnet_args(name, ma, call, kw, sd, ns, arch_defs)
                mine = [(k, v) for k, v in cfgs.items() if k.split('.')[0] == name]
                if not mine:
                    raise Skip('no pretrained cfg')
                default_tag, dcfg = mine[0]
                nc = dcfg.get('num_classes', 1000)
                size = dcfg.get('input_size', (3, 224, 224))[-1]
                # The published figure: the default tag's own results row, a
                # benchmark of the plain name (built with the default config),
                # else another ImageNet-1k tag of the same size.
                count = tagged.get(default_tag) if '.' in default_tag else None
                if count is None and nc in (1000, 0):
                    count = plain.get(name)
                if count is None and nc == 1000:
                    for k, c in mine:
                        if (k in tagged and c.get('num_classes', 1000) == 1000
                                and c.get('input_size', (3, 224, 224))[-1] == size):
                            count = tagged[k]
                            break
                if count is None:
                    raise Skip('no published parameter count')
                rows.append((name, fam, default_tag.partition('.')[2], nc, size, count,
                             ', '.join('%s=%s' % (k, fmt(v)) for k, v in args.items())))
                for k, c in mine[1:]:
                    tnc = c.get('num_classes', 1000)
                    tsize = c.get('input_size', (3, 224, 224))[-1]
                    if tnc != nc or tsize != size:
                        tags.append((name, k.partition('.')[2], tnc, tsize))
            except Skip as e:
                reason = str(e).split(' [')[0].split(' (')[0]
                skipped.setdefault(f + ': ' + reason, []).append(name)
    w = sys.stdout.write
    w('// Generated by tools/timm_table.py from huggingface/pytorch-image-models\n')
    w('// (timm %s, commit %s): timm/models/*.py and results/*.csv. Do not edit.\n' % (version, full))
    w('//\n// TPF_TIMM(name, family, default tag, num_classes, img_size, published params\n')
    w('//          (millions, 2 decimals), builder keyword arguments)\n')
    w('// TPF_TIMM_TAG(name, tag, num_classes, img_size): a pretrained tag whose\n')
    w('//          config differs from the default tag\'s.\n')
    for r in rows:
        w('TPF_TIMM("%s", "%s", "%s", %d, %d, %.2f, "%s")\n' % (r[0], r[1], r[2], r[3], r[4], r[5],
                                                            r[6].replace('"', '\\"')))
    for t in tags:
        w('TPF_TIMM_TAG("%s", "%s", %d, %d)\n' % t)
    for reason, names in sorted(skipped.items()):
        sys.stderr.write('left out (%s): %d: %s\n' % (reason, len(names), ' '.join(names[:6])))
    sys.stderr.write('rows: %d, tags: %d\n' % (len(rows), len(tags)))


if __name__ == '__main__':
    main()
