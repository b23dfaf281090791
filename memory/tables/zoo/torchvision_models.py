"""torchvision.models architectures, as the estimator's interpreter runs them.

Layer for layer the definitions of torchvision 0.15-0.19 (models/resnet.py,
vgg.py, alexnet.py, mobilenetv2.py, mobilenetv3.py, efficientnet.py,
vision_transformer.py, ops/misc.py), so parameter counts match the
published ones (resnet50: 25,557,032; vit_b_16: 86,567,656; ...). Only the
training-relevant code is kept: no weight init, no pretrained loading.
This file is interpreted by tpf-analyze (and importable with torch, which
is how its parameter counts are checked), never run by it.
"""
import math
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F


# ------------------------------------------------------------------ resnet

def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                     groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1):
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1):
        super().__init__()
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000, groups=1, width_per_group=64):
        super().__init__()
        self.inplanes = 64
        self.dilation = 1
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       nn.BatchNorm2d(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


def resnet18(weights=None, progress=True, num_classes=1000, **kwargs):
    return ResNet(BasicBlock, [2, 2, 2, 2], num_classes=num_classes)


def resnet34(weights=None, progress=True, num_classes=1000, **kwargs):
    return ResNet(BasicBlock, [3, 4, 6, 3], num_classes=num_classes)


def resnet50(weights=None, progress=True, num_classes=1000, **kwargs):
    return ResNet(Bottleneck, [3, 4, 6, 3], num_classes=num_classes)


def resnet101(weights=None, progress=True, num_classes=1000, **kwargs):
    return ResNet(Bottleneck, [3, 4, 23, 3], num_classes=num_classes)


def resnet152(weights=None, progress=True, num_classes=1000, **kwargs):
    return ResNet(Bottleneck, [3, 8, 36, 3], num_classes=num_classes)


def resnext50_32x4d(weights=None, progress=True, num_classes=1000, **kwargs):
    return ResNet(Bottleneck, [3, 4, 6, 3], num_classes=num_classes, groups=32, width_per_group=4)


def wide_resnet50_2(weights=None, progress=True, num_classes=1000, **kwargs):
    return ResNet(Bottleneck, [3, 4, 6, 3], num_classes=num_classes, width_per_group=128)


# ------------------------------------------------------------ vgg, alexnet

VGG_CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
          512, 512, 512, 512, "M"],
}


def make_vgg_layers(cfg, batch_norm):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Module):
    def __init__(self, features, num_classes=1000, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


def vgg11(weights=None, progress=True, num_classes=1000, **kwargs):
    return VGG(make_vgg_layers(VGG_CFGS["A"], False), num_classes)


def vgg11_bn(weights=None, progress=True, num_classes=1000, **kwargs):
    return VGG(make_vgg_layers(VGG_CFGS["A"], True), num_classes)


def vgg13(weights=None, progress=True, num_classes=1000, **kwargs):
    return VGG(make_vgg_layers(VGG_CFGS["B"], False), num_classes)


def vgg13_bn(weights=None, progress=True, num_classes=1000, **kwargs):
    return VGG(make_vgg_layers(VGG_CFGS["B"], True), num_classes)


def vgg16(weights=None, progress=True, num_classes=1000, **kwargs):
    return VGG(make_vgg_layers(VGG_CFGS["D"], False), num_classes)


def vgg16_bn(weights=None, progress=True, num_classes=1000, **kwargs):
    return VGG(make_vgg_layers(VGG_CFGS["D"], True), num_classes)


def vgg19(weights=None, progress=True, num_classes=1000, **kwargs):
    return VGG(make_vgg_layers(VGG_CFGS["E"], False), num_classes)


def vgg19_bn(weights=None, progress=True, num_classes=1000, **kwargs):
    return VGG(make_vgg_layers(VGG_CFGS["E"], True), num_classes)


class AlexNet(nn.Module):
    def __init__(self, num_classes=1000, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


def alexnet(weights=None, progress=True, num_classes=1000, **kwargs):
    return AlexNet(num_classes)


# --------------------------------------------------------------- mobilenet

def _make_divisible(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class Conv2dNormActivation(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1, inplace=True,
                 bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer(inplace=inplace))
        super().__init__(*layers)
        self.out_channels = out_channels


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(Conv2dNormActivation(inp, hidden_dim, kernel_size=1, activation_layer=nn.ReLU6))
        layers.extend([
            Conv2dNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                                 activation_layer=nn.ReLU6),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            nn.BatchNorm2d(oup),
        ])
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes=1000, width_mult=1.0, round_nearest=8, dropout=0.2):
        super().__init__()
        input_channel = 32
        last_channel = 1280
        setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
                   [6, 160, 3, 2], [6, 320, 1, 1]]
        input_channel = _make_divisible(input_channel * width_mult, round_nearest)
        self.last_channel = _make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features = [Conv2dNormActivation(3, input_channel, stride=2, activation_layer=nn.ReLU6)]
        for t, c, n, s in setting:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                stride = s if i == 0 else 1
                features.append(InvertedResidual(input_channel, output_channel, stride, expand_ratio=t))
                input_channel = output_channel
        features.append(Conv2dNormActivation(input_channel, self.last_channel, kernel_size=1,
                                             activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(torch.flatten(x, 1))


def mobilenet_v2(weights=None, progress=True, num_classes=1000, **kwargs):
    return MobileNetV2(num_classes)


class SqueezeExcitation(nn.Module):
    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU,
                 scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, x):
        scale = self.avgpool(x)
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(scale))))
        return scale * x


class InvertedResidualV3(nn.Module):
    def __init__(self, inp, kernel, expanded, out, use_se, use_hs, stride, dilation=1):
        super().__init__()
        self.use_res_connect = stride == 1 and inp == out
        act = nn.Hardswish if use_hs else nn.ReLU
        layers = []
        if expanded != inp:
            layers.append(Conv2dNormActivation(inp, expanded, kernel_size=1, activation_layer=act))
        stride = 1 if dilation > 1 else stride
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=kernel, stride=stride,
                                           dilation=dilation, groups=expanded, activation_layer=act))
        if use_se:
            squeeze_channels = _make_divisible(expanded // 4, 8)
            layers.append(SqueezeExcitation(expanded, squeeze_channels, scale_activation=nn.Hardsigmoid))
        layers.append(Conv2dNormActivation(expanded, out, kernel_size=1, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = out

    def forward(self, x):
        result = self.block(x)
        if self.use_res_connect:
            result = result + x
        return result


MOBILENET_V3 = {
    "large": ([[16, 3, 16, 16, False, False, 1], [16, 3, 64, 24, False, False, 2],
               [24, 3, 72, 24, False, False, 1], [24, 5, 72, 40, True, False, 2],
               [40, 5, 120, 40, True, False, 1], [40, 5, 120, 40, True, False, 1],
               [40, 3, 240, 80, False, True, 2], [80, 3, 200, 80, False, True, 1],
               [80, 3, 184, 80, False, True, 1], [80, 3, 184, 80, False, True, 1],
               [80, 3, 480, 112, True, True, 1], [112, 3, 672, 112, True, True, 1],
               [112, 5, 672, 160, True, True, 2], [160, 5, 960, 160, True, True, 1],
               [160, 5, 960, 160, True, True, 1]], 1280),
    "small": ([[16, 3, 16, 16, True, False, 2], [16, 3, 72, 24, False, False, 2],
               [24, 3, 88, 24, False, False, 1], [24, 5, 96, 40, True, True, 2],
               [40, 5, 240, 40, True, True, 1], [40, 5, 240, 40, True, True, 1],
               [40, 5, 120, 48, True, True, 1], [48, 5, 144, 48, True, True, 1],
               [48, 5, 288, 96, True, True, 2], [96, 5, 576, 96, True, True, 1],
               [96, 5, 576, 96, True, True, 1]], 1024),
}


class MobileNetV3(nn.Module):
    def __init__(self, setting, last_channel, num_classes=1000, dropout=0.2):
        super().__init__()
        layers = [Conv2dNormActivation(3, setting[0][0], kernel_size=3, stride=2,
                                       activation_layer=nn.Hardswish)]
        for inp, k, exp, out, se, hs, s in setting:
            layers.append(InvertedResidualV3(inp, k, exp, out, se, hs, s))
        lastconv_in = setting[-1][3]
        lastconv_out = 6 * lastconv_in
        layers.append(Conv2dNormActivation(lastconv_in, lastconv_out, kernel_size=1,
                                           activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(lastconv_out, last_channel), nn.Hardswish(inplace=True),
            nn.Dropout(p=dropout, inplace=True), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


def mobilenet_v3_large(weights=None, progress=True, num_classes=1000, **kwargs):
    setting, last = MOBILENET_V3["large"]
    return MobileNetV3(setting, last, num_classes)


def mobilenet_v3_small(weights=None, progress=True, num_classes=1000, **kwargs):
    setting, last = MOBILENET_V3["small"]
    return MobileNetV3(setting, last, num_classes)


# ------------------------------------------------------------ efficientnet

class StochasticDepth(nn.Module):
    def __init__(self, p, mode):
        super().__init__()
        self.p = p
        self.mode = mode

    def forward(self, input):
        if not self.training or self.p == 0.0:
            return input
        noise = torch.empty([input.shape[0], 1, 1, 1], dtype=input.dtype)
        return input * noise


class MBConv(nn.Module):
    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels, sd_prob):
        super().__init__()
        self.use_res_connect = stride == 1 and input_channels == out_channels
        layers = []
        expanded = _make_divisible(input_channels * expand_ratio, 8)
        if expanded != input_channels:
            layers.append(Conv2dNormActivation(input_channels, expanded, kernel_size=1,
                                               activation_layer=nn.SiLU))
        layers.append(Conv2dNormActivation(expanded, expanded, kernel_size=kernel, stride=stride,
                                           groups=expanded, activation_layer=nn.SiLU))
        squeeze_channels = max(1, input_channels // 4)
        layers.append(SqueezeExcitation(expanded, squeeze_channels, activation=nn.SiLU))
        layers.append(Conv2dNormActivation(expanded, out_channels, kernel_size=1, activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.stochastic_depth = StochasticDepth(sd_prob, "row")
        self.out_channels = out_channels

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result)
            result += input
        return result


class EfficientNet(nn.Module):
    def __init__(self, setting, dropout, stochastic_depth_prob=0.2, num_classes=1000, last_channel=None):
        super().__init__()
        layers = [Conv2dNormActivation(3, setting[0][3], kernel_size=3, stride=2, activation_layer=nn.SiLU)]
        total = 0
        for cfg in setting:
            total += cfg[5]
        stage_block_id = 0
        for expand, k, s, cin, cout, n in setting:
            stage = []
            for i in range(n):
                sd_prob = stochastic_depth_prob * float(stage_block_id) / total
                stage.append(MBConv(expand, k, s if i == 0 else 1, cin if i == 0 else cout, cout, sd_prob))
                stage_block_id += 1
            layers.append(nn.Sequential(*stage))
        lastconv_in = setting[-1][4]
        lastconv_out = last_channel if last_channel is not None else 4 * lastconv_in
        layers.append(Conv2dNormActivation(lastconv_in, lastconv_out, kernel_size=1, activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True),
                                        nn.Linear(lastconv_out, num_classes))

    def forward(self, x):
        x = self.avgpool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


def efficientnet_b0(weights=None, progress=True, num_classes=1000, **kwargs):
    setting = [[1, 3, 1, 32, 16, 1], [6, 3, 2, 16, 24, 2], [6, 5, 2, 24, 40, 2], [6, 3, 2, 40, 80, 3],
               [6, 5, 1, 80, 112, 3], [6, 5, 2, 112, 192, 4], [6, 3, 1, 192, 320, 1]]
    return EfficientNet(setting, 0.2, num_classes=num_classes)


# ---------------------------------------------------------------------- vit

class MLPBlock(nn.Sequential):
    def __init__(self, in_dim, mlp_dim, dropout):
        super().__init__(nn.Linear(in_dim, mlp_dim), nn.GELU(), nn.Dropout(dropout),
                         nn.Linear(mlp_dim, in_dim), nn.Dropout(dropout))


class EncoderBlock(nn.Module):
    def __init__(self, num_heads, hidden_dim, mlp_dim, dropout, attention_dropout):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = nn.LayerNorm(hidden_dim, eps=1e-6)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=attention_dropout,
                                                    batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = nn.LayerNorm(hidden_dim, eps=1e-6)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x)
        x = x + input
        y = self.ln_2(x)
        y = self.mlp(y)
        return x + y


class Encoder(nn.Module):
    def __init__(self, seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                 attention_dropout):
        super().__init__()
        self.pos_embedding = nn.Parameter(torch.empty(1, seq_length, hidden_dim))
        self.dropout = nn.Dropout(dropout)
        layers = OrderedDict()
        for i in range(num_layers):
            layers[f"encoder_layer_{i}"] = EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout,
                                                        attention_dropout)
        self.layers = nn.Sequential(layers)
        self.ln = nn.LayerNorm(hidden_dim, eps=1e-6)

    def forward(self, input):
        input = input + self.pos_embedding
        return self.ln(self.layers(self.dropout(input)))


class VisionTransformer(nn.Module):
    def __init__(self, image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim,
                 dropout=0.0, attention_dropout=0.0, num_classes=1000):
        super().__init__()
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.conv_proj = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2
        self.class_token = nn.Parameter(torch.zeros(1, 1, hidden_dim))
        seq_length += 1
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                               attention_dropout)
        self.seq_length = seq_length
        self.heads = nn.Sequential(OrderedDict([("head", nn.Linear(hidden_dim, num_classes))]))

    def _process_input(self, x):
        n = x.shape[0]
        h = x.shape[2]
        w = x.shape[3]
        p = self.patch_size
        x = self.conv_proj(x)
        x = x.reshape(n, self.hidden_dim, (h // p) * (w // p))
        return x.permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        n = x.shape[0]
        batch_class_token = self.class_token.expand(n, -1, -1)
        x = torch.cat([batch_class_token, x], dim=1)
        x = self.encoder(x)
        x = x[:, 0]
        return self.heads(x)


def vit_b_16(weights=None, progress=True, num_classes=1000, image_size=224, **kwargs):
    return VisionTransformer(image_size, 16, 12, 12, 768, 3072, num_classes=num_classes)


def vit_b_32(weights=None, progress=True, num_classes=1000, image_size=224, **kwargs):
    return VisionTransformer(image_size, 32, 12, 12, 768, 3072, num_classes=num_classes)


def vit_l_16(weights=None, progress=True, num_classes=1000, image_size=224, **kwargs):
    return VisionTransformer(image_size, 16, 24, 16, 1024, 4096, num_classes=num_classes)
