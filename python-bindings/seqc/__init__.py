"""seqc: Keras Sequential models compiled ahead of time; numpy in, numpy out.

    import seqc
    model = seqc.load("model.h5")
    predict = model.compile()          # "jit" when built in, else "eager"
    y = predict(x)                     # float32, any batch size
    report = seqc.compare(model, x, iterations=100)

Models and compiled models pickle by value (the model file's bytes and the
load options), so they travel to other processes and machines; seqc.ray runs
them on a Ray cluster (docs/Scale.md).

Every failure raises seqc.Error with the message seq-compile prints.
See docs/Python.md.
"""

from ._seqc import Compiled, Error, Model, compare, engines, load, load_bytes

# Tracebacks name it as documented, seqc.Error, not seqc._seqc.Error.
Error.__module__ = "seqc"

__version__ = "0.2.0"  # as CMakeLists.txt project(seqc VERSION ...)
__all__ = ["Compiled", "Error", "Model", "compare", "engines", "load", "load_bytes"]
