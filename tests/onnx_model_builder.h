// SPDX-License-Identifier: Apache-2.0
// ONNX models written through the protobuf API for the ONNX reader's tests (test_onnx_network*.cpp).
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace pim::test {

using OnnxDims = std::vector<std::int64_t>;

// An ONNX model written through the protobuf API (opset 13 unless told): float tensors, weights as
// zero-filled initializers (only their shapes matter to the frontend).
class Model {
 public:
  explicit Model(int opset = 13) {
    m_model.set_ir_version(8);
    m_model.set_producer_name("pimscope-test");
    auto* op = m_model.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m_model.mutable_graph()->set_name("test");
  }
  // A graph input; a size < 0 is symbolic (a dynamic batch).
  void input(const std::string& name, const OnnxDims& dims) {
    auto* shape = tensorType(m_model.mutable_graph()->add_input(), name)->mutable_shape();
    for (auto d : dims) {
      if (d < 0)
        shape->add_dim()->set_dim_param("N");
      else
        shape->add_dim()->set_dim_value(d);
    }
  }
  void output(const std::string& name) { tensorType(m_model.mutable_graph()->add_output(), name); }
  // withData false: dims only (a weight of a whole network would take hundreds of MB).
  void weight(const std::string& name, const OnnxDims& dims, bool withData = true) {
    auto* t = m_model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    std::int64_t n = 1;
    for (auto d : dims) t->add_dims(d), n *= d;
    if (withData) t->set_raw_data(std::string(static_cast<std::size_t>(n) * sizeof(float), '\0'));
  }
  void ints(const std::string& name, const OnnxDims& values, bool scalar = false) {
    auto* t = m_model.mutable_graph()->add_initializer();
    t->set_name(name);
    fillInts(t, values, scalar);
  }
  onnx::NodeProto& node(const std::string& op, std::initializer_list<std::string> in,
                        std::initializer_list<std::string> out) {
    auto* n = m_model.mutable_graph()->add_node();
    n->set_op_type(op);
    for (const auto& x : in) n->add_input(x);
    for (const auto& x : out) n->add_output(x);
    return *n;
  }
  // A Constant node holding int64 `values`.
  void constant(const std::string& out, const OnnxDims& values) {
    auto* a = node("Constant", {}, {out}).add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    fillInts(a->mutable_t(), values, false);
  }
  std::string bytes() const { return m_model.SerializeAsString(); }
  std::string write(const TempDir& dir, const std::string& name) const {
    const std::string path = dir.file(name);
    writeBytes(path, bytes());
    return path;
  }

 private:
  static onnx::TypeProto_Tensor* tensorType(onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    return t;
  }
  static void fillInts(onnx::TensorProto* t, const OnnxDims& values, bool scalar) {
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<std::int64_t>(values.size()));
    for (auto v : values) t->add_int64_data(v);
  }
  onnx::ModelProto m_model;
};

inline void setInts(onnx::NodeProto& n, const std::string& name, const OnnxDims& values) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto v : values) a->add_ints(v);
}
inline void setInt(onnx::NodeProto& n, const std::string& name, std::int64_t value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}
inline void setString(onnx::NodeProto& n, const std::string& name, const std::string& value) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

}  // namespace pim::test
