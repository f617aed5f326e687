#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the shipped networks datasets/networks/{resnet18,resnet34,resnet50,vgg16,googlenet,mobilenet_v1,
lenet5}.json (batch 1) in PIMCOMP-NN's ONNX-derived node-list format (../shared/specs/crossbar.md, "Model
input"), read by engine/kernel/network.h. Standard library only; the output is deterministic; every network is
built from its structure (no file of PIMCOMP-NN's is embedded or read).
  scripts/make_networks.py [--out DIR]        (DIR defaults to datasets/networks next to this script)

Conventions, those of PIMCOMP-NN's frontend after its folding: batch norm and a ReLU that directly follows a
conv or FC are fused into it (with_bn, with_act, act_type 0); a ReLU after a residual add stays a node.
Providers and consumers are listed in node order; an add lists its shortcut first, then the main branch.

resnet18, resnet34, vgg16 and googlenet were compared node by node with PIMCOMP-NN's models/JSON files
(commit 2ed10c8): names, operations, input and output dims, providers and consumers (names, indices, order),
every param, the with_bn/with_act/act_type/with_clip/clip flags, bitwidth and reshape_info are identical.
What differs is only what a file leaves out and the loader defaults, each on purpose:
  * every node carries all the list fields: the input has input_dim = output_dim and an empty provider
    list, the output an empty consumer list (PIMCOMP-NN leaves those three out);
  * every conv writes dilation_h/w and group (1); PIMCOMP-NN's googlenet.json leaves them out (its ONNX
    model has no such attributes; the spec's default is 1);
  * PIMCOMP-NN's new_node_index (always equal to index) is not written.

- resnet18: exactly the spec's table (model-zoo resnetv15): 41 nodes, no conv bias, the stride-2 1x1
  downsample conv listed first in stages 2-4 and named stageN_conv2 (convs are numbered in creation order:
  block 0's body, then the downsample, then the other blocks' bodies), flatten_170.
- resnet34: the same basic blocks 3-4-6-3 under the prefix resnetv16_ (73 nodes), flatten_306. The flatten
  names are the ONNX exporter's global node counter, which the structure does not determine: they are
  PIMCOMP-NN's, so that names match.
- vgg16: the spec's description (vgg0_*, 27 nodes), with PIMCOMP-NN's flatten names flatten_60/65/70.
- googlenet: the ONNX model-zoo BVLC GoogLeNet as PIMCOMP-NN ships it (87 nodes), Caffe names with the
  exporter's "_1" suffix (data_0 for the input): LRN after pool1 and conv2, Caffe's ceil-mode 3x3 s2 max
  pools as pads 0 (top/left) and 2 (bottom/right), inception modules in the order 1x1, 3x3_reduce, 3x3,
  5x5_reduce, 5x5, pool (3x3 s1 p1 max), pool_proj, output (concat of 1x1, 3x3, 5x5, pool_proj); convs with
  bias and fused ReLU, no BN; a 7x7 s1 average pool that is not marked global, dropout pool5/7x7_s1_2,
  reshape OC2_DUMMY_0 to 1x1024, FC loss3/classifier_1 without activation, softmax prob_1.
- resnet50: not PIMCOMP-NN's file (that one is a model-zoo resnetv17 export). Here the torchvision v1.5
  bottleneck (stride on the 3x3), blocks 3-4-6-3, named in the resnetv15 style of resnet18 for
  consistency: convs numbered in creation order (block 0's body conv0-conv2, its 1x1 projection conv3,
  block b's body conv(3b+1)-conv(3b+3)), the projection listed first in every stage (stage 1 has one too:
  64 -> 256 at stride 1), no conv bias. The flatten is named flatten_<its index> (the ONNX exporter's
  counter is unknown).
- mobilenet_v1: MobileNet-v1 1.0 at 224, Gluon's names (mobilenet0_convN_fwd, N = 0..26): a 3x3 s2 conv
  3 -> 32, then 13 blocks of a depthwise 3x3 (group = channels, pad 1) and a pointwise 1x1, each with bn and
  relu and no bias; a global 7 x 7 average pool, flatten_<its index>, FC 1024 -> 1000 with bias.
- lenet5: a small MNIST network, because the paper's MNIST networks (vgg8, resnet18) are not public and
  tests and quick sweeps need a whole network that maps in moments (its largest weight matrix is 400 x 120).
  LeNet-5 in its common modern form on MNIST's own 1 x 28 x 28: conv 5x5 pad 2 1 -> 6 (keeping the 28 x 28
  map the original got from a 32 x 32 input), 2x2 s2 max pool, conv 5x5 6 -> 16, 2x2 s2 max pool, flatten
  16x5x5 = 400, FC 400 -> 120 -> 84 with fused ReLU, FC 84 -> 10; convs and FCs with bias, no BN. Gluon-style
  names (lenet0_conv0_fwd, ...), flatten_<its index>; reshape_info on the first FC.
"""
import argparse
import json
import os

CLIP_MIN, CLIP_MAX = -10000000, 10000000  # PIMCOMP-NN writes these on every CONV/FC (no clip)


class Network:
    """A node list being built: each add() names its providers, which get it appended as a consumer."""

    def __init__(self):
        self.nodes = []
        self.by_name = {}

    def add(self, name, op, providers, output_dim, param=None, bn=False, act=False):
        if name in self.by_name:
            raise ValueError(f"node name {name} used twice")
        prov = [self.by_name[p] for p in providers]
        input_dim = prov[0]["output_dim"] if prov else output_dim
        node = {
            "index": len(self.nodes),
            "name": name,
            "operation": op,
            "provider_num": len(prov),
            "provider": [p["name"] for p in prov],
            "provider_index": [p["index"] for p in prov],
            "consumer_num": 0,
            "consumer": [],
            "consumer_index": [],
            "input_dim_num": len(input_dim),
            "input_dim": list(input_dim),
            "output_dim_num": len(output_dim),
            "output_dim": list(output_dim),
        }
        if op in ("OP_CONV", "OP_FC"):
            node.update({"with_bn": int(bn), "with_act": int(act), "act_type": 0 if act else -1,
                         "with_clip": 0, "clip_min": CLIP_MIN, "clip_max": CLIP_MAX})
        if param is not None:
            node["param"] = param
        node["bitwidth"] = 16
        for p in prov:
            p["consumer"].append(name)
            p["consumer_index"].append(node["index"])
            p["consumer_num"] += 1
        self.nodes.append(node)
        self.by_name[name] = node
        return name

    def dim(self, name):
        return self.by_name[name]["output_dim"]

    def conv(self, name, src, out_c, k, stride, pad, bn=True, act=True, bias=False, group=1):
        n, c, h, w = self.dim(src)
        oh = (h + 2 * pad - k) // stride + 1
        ow = (w + 2 * pad - k) // stride + 1
        param = {"kernel_h": k, "kernel_w": k, "stride_h": stride, "stride_w": stride,
                 "pad_h0": pad, "pad_h1": pad, "pad_w0": pad, "pad_w1": pad,
                 "dilation_h": 1, "dilation_w": 1, "group": group,
                 "input_channel": c, "output_channel": out_c, "with_bias": int(bias)}
        return self.add(name, "OP_CONV", [src], [n, out_c, oh, ow], param, bn, act)

    def pool(self, name, src, k, stride, pad, method=0, is_global=False, tail_pad=None):
        """tail_pad, when given, is the bottom and right pad (pad the top and left): Caffe's ceil-mode
        pools, which ONNX writes as asymmetric pads."""
        n, c, h, w = self.dim(src)
        if is_global:
            k, stride, pad = h, 1, 0
        tail = pad if tail_pad is None else tail_pad
        oh = (h + pad + tail - k) // stride + 1
        ow = (w + pad + tail - k) // stride + 1
        param = {"kernel_h": k, "kernel_w": k, "stride_h": stride, "stride_w": stride,
                 "pad_h0": pad, "pad_h1": tail, "pad_w0": pad, "pad_w1": tail,
                 "pool_method": method, "global": int(is_global)}
        return self.add(name, "OP_POOL", [src], [n, c, oh, ow], param)

    def fc(self, name, src, out, act=False):
        n, num_input = self.dim(src)
        param = {"num_input": num_input, "num_output": out, "with_bias": 1}
        return self.add(name, "OP_FC", [src], [n, out], param, act=act)

    def flatten(self, name, src, op="OP_FLATTEN"):
        """[N, C, H, W] -> [N, C*H*W]; op OP_RESHAPE for an ONNX Reshape that does the same."""
        d = self.dim(src)
        size = 1
        for x in d[1:]:
            size *= x
        return self.add(name, op, [src], [d[0], size])

    def concat(self, name, providers):
        """Concatenation along the channels; input_dim is the first provider's output, as PIMCOMP-NN's."""
        n, _, h, w = self.dim(providers[0])
        return self.add(name, "OP_CONCAT", providers, [n, sum(self.dim(p)[1] for p in providers), h, w])

    def same(self, name, op, providers, param=None):
        return self.add(name, op, providers, list(self.dim(providers[0])), param)

    def add_relu(self, add_name, relu_name, shortcut, main):
        self.same(add_name, "OP_ELTWISE", [shortcut, main], {"eletype": 2})
        return self.same(relu_name, "OP_RELU", [add_name])

    def classifier(self, src, pool_name, dense_name, flatten_name=None, classes=1000):
        """Global average pool, flatten (named flatten_<its index> unless given) and FC; returns the
        reshape_info of the FC."""
        pool = self.pool(pool_name, src, 0, 1, 0, method=1, is_global=True)
        flat = self.flatten(flatten_name or f"flatten_{len(self.nodes)}", pool)
        dense = self.fc(dense_name, flat, classes)
        return {"name": dense, "input_dim": list(self.dim(pool)), "output_dim": list(self.dim(flat))}

    def document(self, reshape_info):
        return {"node_list": self.nodes, "reshape_info": reshape_info}


def stem(net, prefix):
    data = net.add("data", "OP_INPUT", [], [1, 3, 224, 224])
    conv0 = net.conv(prefix + "conv0_fwd", data, 64, 7, 2, 3)
    return net.pool(prefix + "pool0_fwd", conv0, 3, 2, 1)


def basic_resnet(p, blocks, flatten_name):
    """ResNet-18/34 (model-zoo resnetv1 basic blocks): `blocks` per stage, prefix p."""
    net = Network()
    x = stem(net, p)
    for stage, (count, ch) in enumerate(zip(blocks, [64, 128, 256, 512]), start=1):
        s = f"{p}stage{stage}_"
        for block in range(count):
            first = 2 * block + (1 if block > 0 and stage > 1 else 0)  # conv2 is block 0's downsample
            stride = 2 if stage > 1 and block == 0 else 1
            shortcut = x
            if stride == 2:  # created after block 0's body, listed first
                shortcut = net.conv(f"{s}conv2_fwd", x, ch, 1, 2, 0, act=False)
            y = net.conv(f"{s}conv{first}_fwd", x, ch, 3, stride, 1)
            y = net.conv(f"{s}conv{first + 1}_fwd", y, ch, 3, 1, 1, act=False)
            x = net.add_relu(f"{s}_plus{block}", f"{s}activation{block}", shortcut, y)
    return net.document(net.classifier(x, p + "pool1_fwd", p + "dense0_fwd", flatten_name))


def resnet18():
    return basic_resnet("resnetv15_", [2, 2, 2, 2], "flatten_170")


def resnet34():
    return basic_resnet("resnetv16_", [3, 4, 6, 3], "flatten_306")


def resnet50():
    p = "resnetv15_"
    net = Network()
    x = stem(net, p)
    for stage, (blocks, mid) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512]), start=1):
        s = f"{p}stage{stage}_"
        for block in range(blocks):
            first = 3 * block + (1 if block > 0 else 0)  # conv3 is block 0's projection
            stride = 2 if stage > 1 and block == 0 else 1
            shortcut = x
            if block == 0:
                shortcut = net.conv(f"{s}conv3_fwd", x, 4 * mid, 1, stride, 0, act=False)
            y = net.conv(f"{s}conv{first}_fwd", x, mid, 1, 1, 0)
            y = net.conv(f"{s}conv{first + 1}_fwd", y, mid, 3, stride, 1)
            y = net.conv(f"{s}conv{first + 2}_fwd", y, 4 * mid, 1, 1, 0, act=False)
            x = net.add_relu(f"{s}_plus{block}", f"{s}activation{block}", shortcut, y)
    return net.document(net.classifier(x, p + "pool1_fwd", p + "dense0_fwd"))


def vgg16():
    net = Network()
    x = net.add("data", "OP_INPUT", [], [1, 3, 224, 224])
    conv = 0
    for pool, (count, ch) in enumerate(zip([2, 2, 3, 3, 3], [64, 128, 256, 512, 512])):
        for _ in range(count):
            x = net.conv(f"vgg0_conv{conv}_fwd", x, ch, 3, 1, 1, bn=False, bias=True)
            conv += 1
        x = net.pool(f"vgg0_pool{pool}_fwd", x, 2, 2, 0)
    pool4 = x
    flat = net.flatten("flatten_60", x)
    x = net.fc("vgg0_dense0_fwd", flat, 4096, act=True)
    x = net.same("vgg0_dropout0_fwd", "OP_DROPOUT", [x])
    x = net.flatten("flatten_65", x)
    x = net.fc("vgg0_dense1_fwd", x, 4096, act=True)
    x = net.same("vgg0_dropout1_fwd", "OP_DROPOUT", [x])
    x = net.flatten("flatten_70", x)
    net.fc("vgg0_dense2_fwd", x, 1000)
    return net.document({"name": "vgg0_dense0_fwd", "input_dim": list(net.dim(pool4)),
                         "output_dim": list(net.dim(flat))})


def mobilenet_v1():
    p = "mobilenet0_"
    net = Network()
    x = net.add("data", "OP_INPUT", [], [1, 3, 224, 224])
    x = net.conv(f"{p}conv0_fwd", x, 32, 3, 2, 1)
    blocks = [(1, 64), (2, 128), (1, 128), (2, 256), (1, 256), (2, 512)] + [(1, 512)] * 5 + [(2, 1024),
                                                                                             (1, 1024)]
    conv = 1
    for stride, out in blocks:
        ch = net.dim(x)[1]
        x = net.conv(f"{p}conv{conv}_fwd", x, ch, 3, stride, 1, group=ch)  # depthwise
        x = net.conv(f"{p}conv{conv + 1}_fwd", x, out, 1, 1, 0)  # pointwise
        conv += 2
    return net.document(net.classifier(x, p + "pool0_fwd", p + "dense0_fwd"))


# GoogLeNet's inception modules: (name, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool proj), in order, and the
# 3x3 s2 max pools that follow two of them.
INCEPTIONS = [("3a", 64, 96, 128, 16, 32, 32), ("3b", 128, 128, 192, 32, 96, 64),
              ("4a", 192, 96, 208, 16, 48, 64), ("4b", 160, 112, 224, 24, 64, 64),
              ("4c", 128, 128, 256, 24, 64, 64), ("4d", 112, 144, 288, 32, 64, 64),
              ("4e", 256, 160, 320, 32, 128, 128), ("5a", 256, 160, 320, 32, 128, 128),
              ("5b", 384, 192, 384, 48, 128, 128)]
POOL_AFTER = {"3b": "pool3/3x3_s2_1", "4e": "pool4/3x3_s2_1"}


def inception(net, x, name, c1, r3, c3, r5, c5, proj):
    m = f"inception_{name}/"

    def conv(suffix, src, out, k):
        return net.conv(f"{m}{suffix}_1", src, out, k, 1, k // 2, bn=False, bias=True)

    b1 = conv("1x1", x, c1, 1)
    b3 = conv("3x3", conv("3x3_reduce", x, r3, 1), c3, 3)
    b5 = conv("5x5", conv("5x5_reduce", x, r5, 1), c5, 5)
    bp = conv("pool_proj", net.pool(f"{m}pool_1", x, 3, 1, 1), proj, 1)
    return net.concat(f"{m}output_1", [b1, b3, b5, bp])


def googlenet():
    net = Network()
    x = net.add("data_0", "OP_INPUT", [], [1, 3, 224, 224])
    x = net.conv("conv1/7x7_s2_1", x, 64, 7, 2, 3, bn=False, bias=True)
    x = net.pool("pool1/3x3_s2_1", x, 3, 2, 0, tail_pad=2)  # Caffe's ceil mode: pads 0 and 2
    x = net.same("pool1/norm1_1", "OP_LRN", [x])
    x = net.conv("conv2/3x3_reduce_1", x, 64, 1, 1, 0, bn=False, bias=True)
    x = net.conv("conv2/3x3_1", x, 192, 3, 1, 1, bn=False, bias=True)
    x = net.same("conv2/norm2_1", "OP_LRN", [x])
    x = net.pool("pool2/3x3_s2_1", x, 3, 2, 0, tail_pad=2)
    for module in INCEPTIONS:
        x = inception(net, x, *module)
        if module[0] in POOL_AFTER:
            x = net.pool(POOL_AFTER[module[0]], x, 3, 2, 0, tail_pad=2)
    x = net.pool("pool5/7x7_s1_1", x, 7, 1, 0, method=1)  # an AveragePool, not a GlobalAveragePool
    dropout = net.same("pool5/7x7_s1_2", "OP_DROPOUT", [x])
    flat = net.flatten("OC2_DUMMY_0", dropout, op="OP_RESHAPE")
    x = net.fc("loss3/classifier_1", flat, 1000)
    net.same("prob_1", "OP_SOFTMAX", [x])
    return net.document({"name": "loss3/classifier_1", "input_dim": list(net.dim(dropout)),
                         "output_dim": list(net.dim(flat))})


def lenet5():
    p = "lenet0_"
    net = Network()
    x = net.add("data", "OP_INPUT", [], [1, 1, 28, 28])
    x = net.conv(f"{p}conv0_fwd", x, 6, 5, 1, 2, bn=False, bias=True)
    x = net.pool(f"{p}pool0_fwd", x, 2, 2, 0)
    x = net.conv(f"{p}conv1_fwd", x, 16, 5, 1, 0, bn=False, bias=True)
    pool1 = net.pool(f"{p}pool1_fwd", x, 2, 2, 0)
    flat = net.flatten(f"flatten_{len(net.nodes)}", pool1)
    x = net.fc(f"{p}dense0_fwd", flat, 120, act=True)
    x = net.fc(f"{p}dense1_fwd", x, 84, act=True)
    net.fc(f"{p}dense2_fwd", x, 10)
    return net.document({"name": f"{p}dense0_fwd", "input_dim": list(net.dim(pool1)),
                         "output_dim": list(net.dim(flat))})


def write(path, doc):
    # One node a line: small files whose diffs show which node changed.
    lines = [json.dumps(n, separators=(",", ":")) for n in doc["node_list"]]
    text = '{"node_list":[\n' + ",\n".join(lines) + "\n],\n"
    text += '"reshape_info":' + json.dumps(doc["reshape_info"], separators=(",", ":")) + "}\n"
    json.loads(text)  # a syntax slip here would ship a file the loader refuses
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "datasets", "networks"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name, build in [("resnet18", resnet18), ("resnet34", resnet34), ("resnet50", resnet50),
                        ("vgg16", vgg16), ("googlenet", googlenet), ("mobilenet_v1", mobilenet_v1),
                        ("lenet5", lenet5)]:
        write(os.path.join(a.out, name + ".json"), build())


if __name__ == "__main__":
    main()
