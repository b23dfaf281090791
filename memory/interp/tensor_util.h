// Helpers shared by the tensor files (tensor_shape.cpp, tensor_views.cpp,
// tensor_ops.cpp, layers.cpp): argument decoding and small constructors.
// requires: interp.h. produces: nothing on its own.
#pragma once

#include <optional>
#include <vector>

#include "memory/interp/interp.h"

namespace tpf::memory {

std::vector<uint8_t> identity_perm(size_t n);
/// A dim argument normalized to [0, rank) (negative counts from the end).
std::optional<int64_t> norm_dim(int64_t d, size_t rank);
/// Sizes given as `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `size=`, from
/// positional `start` on. nullopt when one is not a known integer.
std::optional<std::vector<DimId>> shape_from(Interp& in, const Args& a, size_t start);
std::optional<Dtype> dtype_arg(Interp& in, const Args& a, std::string_view name);
/// `requires_grad=True` on a factory call.
Value requires_grad_kw(Interp& in, const Args& a, Value t);
/// A new tensor of x's shape (a copy: cast, clone, contiguous), linked to x.
Value tensor_copy(Interp& in, Value x, std::optional<Dtype> dt);
/// The broadcast shape of two shapes (equal extents assumed where neither is 1).
std::vector<DimId> broadcast(Interp& in, const std::vector<DimId>& a, const std::vector<DimId>& b);
/// Result dtype of a binary op by type promotion (floating wins, wider wins).
Dtype promote(Dtype a, Dtype b);
/// The tensor argument `i`/`name`, or null.
TensorObj* tensor_arg(Interp& in, const Args& a, size_t i, std::string_view name);
/// An int argument, or `def`.
int64_t int_arg(Interp& in, const Args& a, size_t i, std::string_view name, int64_t def);
/// Casts `x` for an autocast op (lower precision) when autocast is on and x
/// is floating of another dtype; parameters' casts are cached per region.
Value autocast_lower(Interp& in, Value x);
/// Casts `x` up to float32 for an autocast fp32-list op (CUDA lists).
Value autocast_fp32(Interp& in, Value x);
/// A saved python scalar (mul/div by a number saves a 0-dim 8-byte tensor).
void save_scalar(Interp& in, Value out);

}  // namespace tpf::memory
