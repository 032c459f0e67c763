#include "NestedModels.h"

#include "KerasConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

using namespace llvm;

namespace seq::keras {

bool isModelClass(StringRef className) {
  return className == "Sequential" || className == "Functional" ||
         className == "Model";
}

namespace {

struct Ref {
  std::string layer;
  int64_t node = 0;
  int64_t index = 0;
};

/// A model's layers with its nested models inlined, names relative to it.
struct Flat {
  /// Layer entries, InputLayers included, with rewritten inbound_nodes.
  json::Array layers;
  /// Its InputLayers' names, in its input order.
  std::vector<std::string> inputs;
  std::vector<Ref> outputs;
  /// How many times each layer is called (1 for an InputLayer).
  StringMap<int64_t> calls;
};

std::string entryName(const json::Object &o) {
  std::string name = o.getString("name").value_or("").str();
  if (name.empty())
    if (const json::Object *config = o.getObject("config"))
      name = config->getString("name").value_or("").str();
  return name;
}

StringRef classOf(const json::Object &o) {
  return o.getString("class_name").value_or("");
}

/// Replaces every tensor reference in `v` (Keras 2's ["name", node, index,
/// kwargs], Keras 3's {"keras_history": [name, node, index]}: the forms
/// tensorRefs reads) by what `resolve` makes of it.
Error rewriteRefs(json::Value &v,
                  const std::function<Expected<Ref>(const Ref &)> &resolve) {
  auto replace = [&](json::Array &a) -> Error {
    Ref ref{a[0].getAsString()->str(),
            a.size() >= 2 ? a[1].getAsInteger().value_or(0) : 0,
            a.size() >= 3 ? a[2].getAsInteger().value_or(0) : 0};
    Expected<Ref> to = resolve(ref);
    if (!to)
      return to.takeError();
    while (a.size() < 3)
      a.push_back(0);
    a[0] = to->layer;
    a[1] = to->node;
    a[2] = to->index;
    return Error::success();
  };
  if (json::Object *o = v.getAsObject()) {
    if (json::Array *history = o->getArray("keras_history")) {
      if (!history->empty() && (*history)[0].getAsString())
        return replace(*history);
      return Error::success();
    }
    for (auto &kv : *o)
      if (Error e = rewriteRefs(kv.second, resolve))
        return e;
    return Error::success();
  }
  if (json::Array *a = v.getAsArray()) {
    if (a->size() >= 3 && (*a)[0].getAsString() && (*a)[1].getAsInteger()) {
      if (!isConstantValue(*a))
        if (Error e = replace(*a))
          return e;
      return a->size() >= 4 ? rewriteRefs((*a)[3], resolve) : Error::success();
    }
    for (json::Value &e : *a)
      if (Error err = rewriteRefs(e, resolve))
        return err;
  }
  return Error::success();
}

/// A copy of a layer entry named `name` (in the entry and its config)
/// inside `scope`, without a scope of the file's own.
json::Object renamedEntry(const json::Object &entry, StringRef name,
                          json::Array scope) {
  json::Object copy = entry;
  copy.erase(kScopeKey);
  // A json::Value made from a StringRef borrows it: names are copied.
  copy["name"] = name.str();
  if (json::Object *config = copy.getObject("config"))
    (*config)["name"] = name.str();
  if (!scope.empty())
    copy[kScopeKey] = std::move(scope);
  return copy;
}

Expected<Flat> flattenModel(const json::Object &entry, StringRef where,
                            StringRef path, int depth);

/// The mask a Keras 3 call of a model passes with its input `i`, or null.
const json::Value *callMask(const json::Value &call, size_t i) {
  const json::Object *node = call.getAsObject();
  const json::Object *kwargs = node ? node->getObject("kwargs") : nullptr;
  const json::Value *mask = kwargs ? kwargs->get("mask") : nullptr;
  if (const json::Array *masks = mask ? mask->getAsArray() : nullptr)
    mask = i < masks->size() ? &(*masks)[i] : nullptr;
  return mask && mask->getAsObject() ? mask : nullptr;
}

/// Names `mask` as the mask of a call `node` that names none: in Keras 3's
/// kwargs, or in the kwargs of Keras 2's first tensor (a chain's node).
void giveMask(json::Value &node, json::Value mask) {
  json::Object *kwargs = nullptr;
  if (json::Object *o = node.getAsObject()) {
    if (!o->getObject("kwargs"))
      (*o)["kwargs"] = json::Object();
    kwargs = o->getObject("kwargs");
  } else if (json::Array *a = node.getAsArray(); a && !a->empty()) {
    json::Array *first = (*a)[0].getAsArray();
    if (first && first->size() == 3)
      first->push_back(json::Object());
    if (first && first->size() >= 4)
      kwargs = (*first)[3].getAsObject();
  }
  const json::Value *named = kwargs ? kwargs->get("mask") : nullptr;
  if (kwargs && (!named || named->kind() == json::Value::Null))
    (*kwargs)["mask"] = std::move(mask);
}

/// The model a TimeDistributed layer wraps, or null.
const json::Object *wrappedModel(const json::Object &entry) {
  if (classOf(entry) != "TimeDistributed")
    return nullptr;
  const json::Object *config = entry.getObject("config");
  const json::Object *layer = config ? config->getObject("layer") : nullptr;
  return layer && isModelClass(classOf(*layer)) ? layer : nullptr;
}

/// A layer `inner` of a model that a TimeDistributed wraps, as a
/// TimeDistributed of its own: applying a model at every step applies each
/// of its layers at every step.
json::Object perStepEntry(const json::Object &inner, StringRef name,
                          json::Array scope) {
  json::Object layer{{"class_name", classOf(inner).str()}};
  if (const json::Object *config = inner.getObject("config"))
    layer["config"] = json::Object(*config);
  json::Object entry{{"class_name", "TimeDistributed"},
                     {"config", json::Object{{"name", name.str()},
                                             {"layer", std::move(layer)}}}};
  if (const json::Value *nodes = inner.get("inbound_nodes"))
    entry["inbound_nodes"] = *nodes;
  return renamedEntry(entry, name, std::move(scope));
}

/// A Functional model's (or a Sequential chain's, `chain`) layers with its
/// nested models inlined. `path` names the model in messages ("" for the
/// file's model).
Expected<Flat> flattenFunctional(const json::Object &config, StringRef where,
                                 StringRef path, int depth, bool chain) {
  auto fail = [&](const Twine &message) {
    return fileError(where, (path.empty() ? Twine("") : "nested model '" + path + "': ") +
                                message);
  };
  const json::Array *layers = config.getArray("layers");
  if (!layers)
    return fail("the config has no 'layers' list");
  // tf_keras numbers a nested model's calls after the call that built it
  // with its InputLayer (its node 0, which the config leaves out).
  bool keras2 = !chain && llvm::any_of(*layers, [](const json::Value &v) {
    const json::Object *o = v.getAsObject();
    const json::Array *nodes = o ? o->getArray("inbound_nodes") : nullptr;
    return nodes && !nodes->empty() && (*nodes)[0].getAsArray();
  });
  // A nested model, or the model a TimeDistributed wraps (`wrapper`: its
  // layers are named "<wrapper>/<model>/<layer>").
  struct Nested {
    Flat inner;
    std::string className;
    std::vector<const json::Value *> calls;
    bool skipsFirstNode = false;
    std::string prefix;
    json::Array scope;
    bool wrapper = false;
  };
  StringMap<Nested> nested;
  StringSet<> names;
  // Of the file's own model, parseFunctional says what is malformed.
  for (const json::Value &v : *layers) {
    const json::Object *o = v.getAsObject();
    if (!o)
      return fileError(where, (path.empty() ? Twine("Functional model config")
                                            : "nested model '" + path + "'") +
                                  " has a layer without a name");
    std::string name = entryName(*o);
    if (!path.empty() && name.empty())
      return fail("a '" + classOf(*o) + "' layer has no name");
    if (!path.empty() && !names.insert(name).second)
      return fail("two layers are named '" + name + "'");
    const json::Object *wrapped = wrappedModel(*o);
    if (!isModelClass(classOf(*o)) && !wrapped)
      continue;
    const json::Object &model = wrapped ? *wrapped : *o;
    std::string modelName = entryName(model);
    std::string prefix = wrapped ? name + "/" + modelName : name;
    std::string inner = path.empty() ? prefix : (path + "/" + prefix).str();
    if (depth + 1 > kMaxModelNesting)
      return fileError(where, "nested model '" + inner + "' is nested " +
                                  Twine(depth + 1) + " models deep, more than the " +
                                  Twine(kMaxModelNesting) +
                                  " seqc accepts (the file is corrupt or hostile)");
    Expected<Flat> flat = flattenModel(model, where, inner, depth + 1);
    if (!flat)
      return flat.takeError();
    Nested n{std::move(*flat), classOf(model).str(), {}, false, prefix, {}, bool(wrapped)};
    if (wrapped)
      n.scope.push_back(json::Array{name, "TimeDistributed"});
    n.scope.push_back(json::Array{modelName, n.className});
    if (wrapped)
      for (const json::Value &e : n.inner.layers) {
        const json::Object &layer = *e.getAsObject();
        const json::Array *nodes = layer.getArray("inbound_nodes");
        if (classOf(layer) != "InputLayer" && nodes &&
            llvm::any_of(*nodes, [](const json::Value &node) {
              return tensorRefs(node).size() != 1;
            }))
          return fileError(where, "layer '" + name + "' (TimeDistributed): wraps the model '" +
                                      modelName + "', whose layer '" + entryName(layer) +
                                      "' reads several tensors: TimeDistributed over a "
                                      "graph is not supported; wrap each layer instead "
                                      "and re-save");
      }
    if (const json::Array *nodes = o->getArray("inbound_nodes"))
      for (const json::Value &node : *nodes)
        n.calls.push_back(&node);
    if (n.calls.empty())
      return fileError(where, "nested model '" + inner +
                                  "' is never called: the model config is malformed");
    const json::Object *cfg = model.getObject("config");
    const json::Array *innerLayers = cfg ? cfg->getArray("layers") : nullptr;
    n.skipsFirstNode = keras2 && !wrapped && innerLayers && !innerLayers->empty() &&
                       (n.className != "Sequential" ||
                        ((*innerLayers)[0].getAsObject() &&
                         classOf(*(*innerLayers)[0].getAsObject()) == "InputLayer"));
    nested.try_emplace(name, std::move(n));
  }

  // A tensor of this model, with nested models' outputs replaced by the
  // layers that make them. `hops` bounds a chain of nested models reading
  // each other (a cycle in a hostile file).
  std::function<Expected<Ref>(const Ref &, size_t)> resolve;
  // What call `node` of nested model `name` passes as its input `i`.
  auto callInput = [&](StringRef name, const Nested &n, int64_t node, size_t i,
                       size_t hops) -> Expected<Ref> {
    std::vector<TensorRef> given = tensorRefs(*n.calls[node]);
    if (given.size() != n.inner.inputs.size())
      return fail("layer '" + name + "' (" + n.className + ") is called with " +
                  Twine(given.size()) + " tensor(s) but has " +
                  Twine(n.inner.inputs.size()) + " input(s)");
    return resolve(Ref{given[i].layer, given[i].node, given[i].index}, hops + 1);
  };
  resolve = [&](const Ref &ref, size_t hops) -> Expected<Ref> {
    auto it = nested.find(ref.layer);
    if (it == nested.end())
      return ref;
    const Nested &n = it->second;
    if (hops > nested.size())
      return fail("nested models '" + ref.layer + "' and others read each other in a cycle");
    int64_t node = ref.node - (n.skipsFirstNode ? 1 : 0);
    if (node < 0 || node >= static_cast<int64_t>(n.calls.size()))
      return fail("call " + Twine(ref.node) + " of nested model '" + ref.layer +
                  "' is read, but it is called " + Twine(n.calls.size()) +
                  " time(s): the model config is malformed");
    if (ref.index < 0 || ref.index >= static_cast<int64_t>(n.inner.outputs.size()))
      return fail("a layer reads output " + Twine(ref.index) + " of nested model '" +
                  ref.layer + "', which has " + Twine(n.inner.outputs.size()) +
                  " output(s)");
    const Ref &out = n.inner.outputs[ref.index];
    auto input = llvm::find(n.inner.inputs, out.layer);
    if (input != n.inner.inputs.end())
      return callInput(ref.layer, n, node, input - n.inner.inputs.begin(), hops);
    return Ref{n.prefix + "/" + out.layer, node * n.inner.calls.lookup(out.layer) + out.node,
               out.index};
  };
  auto resolveHere = [&](const Ref &ref) { return resolve(ref, 0); };

  Flat flat;
  int64_t totalCalls = 0;
  for (const json::Value &v : *layers) {
    const json::Object *o = v.getAsObject();
    std::string name = entryName(*o);
    auto it = nested.find(name);
    if (it == nested.end()) {
      json::Object copy = *o;
      copy.erase(kScopeKey);
      int64_t calls = 1;
      if (json::Array *nodes = copy.getArray("inbound_nodes")) {
        for (json::Value &node : *nodes)
          if (Error e = rewriteRefs(node, resolveHere))
            return std::move(e);
        calls = std::max<int64_t>(nodes->size(), 1);
      }
      flat.calls[name] = calls;
      flat.layers.push_back(std::move(copy));
      continue;
    }
    const Nested &n = it->second;
    for (const json::Value &innerValue : n.inner.layers) {
      const json::Object &inner = *innerValue.getAsObject();
      std::string innerName = entryName(inner);
      if (classOf(inner) == "InputLayer")
        continue;
      std::string fullName = n.prefix + "/" + innerName;
      json::Array scope = n.scope;
      if (const json::Array *own = inner.getArray(kScopeKey))
        scope.insert(scope.end(), own->begin(), own->end());
      json::Object copy = n.wrapper ? perStepEntry(inner, fullName, std::move(scope))
                                    : renamedEntry(inner, fullName, std::move(scope));
      // One call of the inner layer per call of the model and call of the
      // layer in it, numbered model call first.
      json::Array nodes;
      int64_t innerCalls = n.inner.calls.lookup(innerName);
      totalCalls += innerCalls * static_cast<int64_t>(n.calls.size());
      if (totalCalls > kMaxInlinedCalls)
        return fail("the nested models expand to more than " + Twine(kMaxInlinedCalls) +
                    " layer calls (the file is corrupt or hostile)");
      static const json::Array none;
      const json::Array *own = inner.getArray("inbound_nodes");
      for (int64_t call = 0; call < static_cast<int64_t>(n.calls.size()); ++call)
        for (const json::Value &node : own ? *own : none) {
          json::Value rewritten = node;
          Error e = rewriteRefs(rewritten, [&](const Ref &ref) -> Expected<Ref> {
            auto input = llvm::find(n.inner.inputs, ref.layer);
            if (input != n.inner.inputs.end())
              return callInput(name, n, call, input - n.inner.inputs.begin(), 0);
            return Ref{n.prefix + "/" + ref.layer,
                       call * n.inner.calls.lookup(ref.layer) + ref.node, ref.index};
          });
          if (e)
            return std::move(e);
          // Keras 3 names the mask a model is called with (the mask of a
          // Masking before it); a layer reading the model's input gets it.
          std::vector<TensorRef> reads = tensorRefs(node);
          auto input = reads.empty() ? n.inner.inputs.end()
                                     : llvm::find(n.inner.inputs, reads[0].layer);
          if (input != n.inner.inputs.end() && !n.wrapper)
            if (const json::Value *mask =
                    callMask(*n.calls[call], input - n.inner.inputs.begin())) {
              json::Value resolved = *mask;
              if (Error e = rewriteRefs(resolved, resolveHere))
                return std::move(e);
              giveMask(rewritten, std::move(resolved));
            }
          nodes.push_back(std::move(rewritten));
        }
      copy["inbound_nodes"] = std::move(nodes);
      flat.calls[fullName] = innerCalls * static_cast<int64_t>(n.calls.size());
      flat.layers.push_back(std::move(copy));
    }
  }
  if (const json::Value *list = config.get("input_layers")) {
    for (const TensorRef &ref : tensorRefs(*list))
      flat.inputs.push_back(ref.layer);
  } else {
    for (const json::Value &v : *layers)
      if (classOf(*v.getAsObject()) == "InputLayer")
        flat.inputs.push_back(entryName(*v.getAsObject()));
  }
  if (const json::Value *list = config.get("output_layers"))
    for (const TensorRef &ref : tensorRefs(*list)) {
      // Keras 3 numbers a nested Functional model's calls from 1 here (its
      // node 0 is the one it was built with) but from 0 in inbound nodes.
      auto it = nested.find(ref.layer);
      bool fromOne = !keras2 && it != nested.end() && !it->second.wrapper &&
                     it->second.className == "Functional";
      Expected<Ref> out = resolve(Ref{ref.layer, ref.node - (fromOne ? 1 : 0), ref.index}, 0);
      if (!out)
        return out.takeError();
      flat.outputs.push_back(std::move(*out));
    }
  return flat;
}

/// A Sequential model as the Functional chain it is: each layer reads the
/// one before, the first its InputLayer (a synthesized one if it has none).
json::Object sequentialAsChain(const json::Array &layers) {
  json::Array entries;
  std::string previous = "input";
  for (const json::Value &v : layers) {
    const json::Object *o = v.getAsObject();
    if (!o)
      continue;
    if (classOf(*o) == "InputLayer" && entries.empty()) {
      previous = entryName(*o);
      json::Object input = *o;
      input["name"] = previous;
      input["inbound_nodes"] = json::Array();
      entries.push_back(std::move(input));
      continue;
    }
    if (entries.empty())
      entries.push_back(json::Object{{"class_name", "InputLayer"},
                                     {"name", previous},
                                     {"config", json::Object{{"name", previous}}}});
    json::Object copy = *o;
    std::string name = entryName(*o);
    copy["name"] = name;
    copy["inbound_nodes"] =
        json::Array{json::Array{json::Array{previous, 0, 0, json::Object{}}}};
    entries.push_back(std::move(copy));
    previous = name;
  }
  std::string input = entries.empty() ? "input" : entryName(*entries[0].getAsObject());
  return json::Object{{"layers", std::move(entries)},
                      {"input_layers", json::Array{json::Array{input, 0, 0}}},
                      {"output_layers", json::Array{json::Array{previous, 0, 0}}}};
}

Expected<Flat> flattenModel(const json::Object &entry, StringRef where,
                            StringRef path, int depth) {
  const json::Object *config = entry.getObject("config");
  const json::Array *layers = config ? config->getArray("layers") : nullptr;
  if (!layers || layers->empty())
    return fileError(where, "nested model '" + path + "' (" + classOf(entry) +
                                ") has no layers: the model config is malformed");
  if (classOf(entry) != "Sequential")
    return flattenFunctional(*config, where, path, depth, false);
  return flattenFunctional(sequentialAsChain(*layers), where, path, depth, true);
}

/// A Functional config of the file's model from its flattened layers.
json::Object inlinedConfig(Flat flat, const json::Object &config) {
  json::Object inlined{{"layers", std::move(flat.layers)}};
  if (const json::Value *inputs = config.get("input_layers"))
    inlined["input_layers"] = *inputs;
  if (config.get("output_layers")) {
    json::Array outputs;
    for (const Ref &ref : flat.outputs)
      outputs.push_back(json::Array{ref.layer, ref.node, ref.index});
    inlined["output_layers"] = std::move(outputs);
  }
  return inlined;
}

} // namespace

bool holdsFunctionalModel(ArrayRef<const json::Value *> layers, int depth) {
  if (depth > kMaxModelNesting)
    return false;
  for (const json::Value *v : layers) {
    const json::Object *o = v->getAsObject();
    if (!o)
      continue;
    const json::Object *model = wrappedModel(*o) ? wrappedModel(*o) : o;
    StringRef cls = classOf(*model);
    if (cls == "Functional" || cls == "Model")
      return true;
    const json::Object *config = model->getObject("config");
    const json::Array *inner = config ? config->getArray("layers") : nullptr;
    if (cls == "Sequential" && inner) {
      std::vector<const json::Value *> entries;
      for (const json::Value &e : *inner)
        entries.push_back(&e);
      if (holdsFunctionalModel(entries, depth + 1))
        return true;
    }
  }
  return false;
}

Expected<json::Object> inlineSequentialAsGraph(const json::Array &layers,
                                               StringRef where) {
  json::Object chain = sequentialAsChain(layers);
  Expected<Flat> flat = flattenFunctional(chain, where, "", 0, true);
  if (!flat)
    return flat.takeError();
  return inlinedConfig(std::move(*flat), chain);
}

Expected<json::Object> inlineNestedModels(const json::Object &config,
                                          StringRef where) {
  Expected<Flat> flat = flattenFunctional(config, where, "", 0, false);
  if (!flat)
    return flat.takeError();
  return inlinedConfig(std::move(*flat), config);
}

namespace {

Error spliceSequential(ArrayRef<const json::Value *> layers, StringRef where,
                       json::Array scope, StringRef prefix, int depth,
                       json::Array &out) {
  for (const json::Value *v : layers) {
    const json::Object *o = v->getAsObject();
    if (!o) {
      out.push_back(*v);
      continue;
    }
    std::string name = entryName(*o);
    std::string full = prefix.empty() ? name : (prefix + "/" + name).str();
    if (const json::Object *wrapped = wrappedModel(*o)) {
      std::string modelName = entryName(*wrapped);
      const json::Object *config = wrapped->getObject("config");
      const json::Array *list = config ? config->getArray("layers") : nullptr;
      if (classOf(*wrapped) != "Sequential" || !list)
        return fileError(where, "layer '" + full + "' (TimeDistributed): wraps the " +
                                    classOf(*wrapped) + " model '" + modelName +
                                    "' inside a Sequential model: not supported; build "
                                    "the outer model as a Functional one and re-save");
      if (depth + 1 > kMaxModelNesting)
        return fileError(where, "nested model '" + full + "/" + modelName +
                                    "' is nested " + Twine(depth + 1) +
                                    " models deep, more than the " +
                                    Twine(kMaxModelNesting) +
                                    " seqc accepts (the file is corrupt or hostile)");
      json::Array innerScope = scope;
      innerScope.push_back(json::Array{name, "TimeDistributed"});
      innerScope.push_back(json::Array{modelName, "Sequential"});
      std::vector<const json::Value *> entries;
      for (const json::Value &e : *list)
        entries.push_back(&e);
      json::Array steps;
      if (Error e = spliceSequential(entries, where, std::move(innerScope),
                                     full + "/" + modelName, depth + 1, steps))
        return e;
      for (const json::Value &step : steps) {
        const json::Object &layer = *step.getAsObject();
        if (classOf(layer) == "InputLayer")
          continue;
        const json::Array *own = layer.getArray(kScopeKey);
        out.push_back(perStepEntry(layer, entryName(layer), own ? *own : json::Array()));
      }
      continue;
    }
    if (!isModelClass(classOf(*o))) {
      // A nested model's InputLayer: only the first says the input's shape.
      bool nestedInput = !prefix.empty() && classOf(*o) == "InputLayer";
      if (nestedInput && !out.empty())
        continue;
      if (prefix.empty() || nestedInput) {
        json::Object copy = *o;
        copy.erase(kScopeKey);
        out.push_back(std::move(copy));
      } else {
        out.push_back(renamedEntry(*o, (prefix + "/" + name).str(), scope));
      }
      continue;
    }
    std::string inner = prefix.empty() ? name : (prefix + "/" + name).str();
    if (classOf(*o) != "Sequential")
      return fileError(where, "layer '" + inner + "' (" + classOf(*o) +
                                  ") is a Functional model inside a Sequential "
                                  "model of Keras 2.2.2 or older: not supported; "
                                  "re-save the model with a newer Keras");
    if (depth + 1 > kMaxModelNesting)
      return fileError(where, "nested model '" + inner + "' is nested " +
                                  Twine(depth + 1) + " models deep, more than the " +
                                  Twine(kMaxModelNesting) +
                                  " seqc accepts (the file is corrupt or hostile)");
    const json::Object *config = o->getObject("config");
    const json::Array *list = config ? config->getArray("layers") : nullptr;
    if (!list || list->empty())
      return fileError(where, "nested model '" + inner +
                                  "' (Sequential) has no layers: the model "
                                  "config is malformed");
    json::Array innerScope = scope;
    innerScope.push_back(json::Array{name, classOf(*o).str()});
    std::vector<const json::Value *> entries;
    for (const json::Value &e : *list)
      entries.push_back(&e);
    if (Error e = spliceSequential(entries, where, std::move(innerScope), inner,
                                   depth + 1, out))
      return e;
  }
  return Error::success();
}

} // namespace

Expected<json::Array>
inlineNestedSequentials(ArrayRef<const json::Value *> layers, StringRef where) {
  json::Array out;
  if (Error e = spliceSequential(layers, where, json::Array(), "", 0, out))
    return std::move(e);
  return out;
}

} // namespace seq::keras
