//! Python values to and from the core types. Observations, steps and outcomes become
//! plain dicts (their keys are the core types' field names, documented as `TypedDict`s in
//! `_escapade.pyi`); pictures are PNG bytes (`decode_png` makes pixels of them), or, from
//! an `Env(..., pixels=True)` whose world draws them itself, `(height, width, rgb)`
//! pixels with `png` None (`encode_png` makes the file of them).
//!
//! An action comes from Python as `str` (free text), `bytes` (raw bytes, maybe not
//! UTF-8), a dict `{"name": ..., "arguments": ...}` (one function call; arguments as a
//! JSON string or as a dict/list, which is encoded to JSON here) or a list of such dicts
//! (several calls of one reply).

use escapade_core::{Action, FunctionCall, Observation, Outcome, Step, ToolSchema};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;

/// An observation as a dict: `text`, `images` (dicts of `sha256`, `png`, `alt`, `pixels`),
/// `actions` (a list, or None) and `role` (or None).
pub fn observation<'py>(py: Python<'py>, o: &Observation) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("text", &o.text)?;
    let images = PyList::empty(py);
    for image in &o.images {
        let i = PyDict::new(py);
        i.set_item("sha256", &image.sha256)?;
        match &image.pixels {
            Some(p) if image.png.is_empty() => {
                i.set_item("png", py.None())?;
                i.set_item("pixels", (p.height, p.width, PyBytes::new(py, &p.rgb)))?;
            }
            _ => {
                i.set_item("png", PyBytes::new(py, &image.png))?;
                i.set_item("pixels", py.None())?;
            }
        }
        i.set_item("alt", &image.alt)?;
        images.append(i)?;
    }
    d.set_item("images", images)?;
    d.set_item("actions", &o.actions)?;
    d.set_item("role", &o.role)?;
    Ok(d)
}

/// A step as a dict: `observation`, `feedback`, `progress`, `terminated`, `truncated`,
/// `error`, `valid`, `steps_to_go` (the oracle's distance from the new state, or None where
/// the world cannot say) and `results` (dicts of `action`, `valid`, `feedback`, `error`).
pub fn step<'py>(py: Python<'py>, s: &Step) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("observation", observation(py, &s.observation)?)?;
    d.set_item("feedback", &s.feedback)?;
    d.set_item("progress", s.progress)?;
    d.set_item("terminated", s.terminated)?;
    d.set_item("truncated", s.truncated)?;
    d.set_item("error", &s.error)?;
    d.set_item("valid", s.valid())?;
    d.set_item("steps_to_go", s.steps_to_go)?;
    let results = PyList::empty(py);
    for r in &s.results {
        let x = PyDict::new(py);
        x.set_item("action", &r.action)?;
        x.set_item("valid", r.valid)?;
        x.set_item("feedback", &r.feedback)?;
        x.set_item("error", &r.error)?;
        results.append(x)?;
    }
    d.set_item("results", results)?;
    Ok(d)
}

/// An outcome as a dict: `success`, `steps` and `metrics` (name → value).
pub fn outcome<'py>(py: Python<'py>, o: &Outcome) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("success", o.success)?;
    d.set_item("steps", o.steps)?;
    d.set_item("metrics", &o.metrics)?;
    Ok(d)
}

/// Function schemas as dicts: `name`, `description`, `parameters` (a JSON Schema).
pub fn tool_schemas<'py>(py: Python<'py>, tools: &[ToolSchema]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for t in tools {
        let d = PyDict::new(py);
        d.set_item("name", &t.name)?;
        d.set_item("description", &t.description)?;
        d.set_item("parameters", json(py, &t.parameters)?)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A JSON value as Python objects (objects keep their key order).
pub fn json<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(json(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// Python objects (None, bool, int, float, str, list, tuple, dict with str keys) as JSON.
pub fn to_json(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_none() {
        Ok(Value::Null)
    } else if let Ok(b) = v.cast::<PyBool>() {
        Ok(Value::Bool(b.is_true()))
    } else if v.is_instance_of::<PyInt>() {
        match v.extract::<i64>() {
            Ok(i) => Ok(Value::from(i)),
            Err(_) => Ok(Value::from(v.extract::<u64>()?)),
        }
    } else if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| PyTypeError::new_err(format!("{f} is not a JSON number")))
    } else if let Ok(s) = v.cast::<PyString>() {
        Ok(Value::String(s.to_str()?.to_string()))
    } else if let Ok(d) = v.cast::<PyDict>() {
        let mut o = serde_json::Map::new();
        for (k, x) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("JSON object keys must be str"))?;
            o.insert(key, to_json(&x)?);
        }
        Ok(Value::Object(o))
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut a = Vec::new();
        for x in v.try_iter()? {
            a.push(to_json(&x?)?);
        }
        Ok(Value::Array(a))
    } else {
        Err(PyTypeError::new_err(format!(
            "{} is not a JSON value",
            v.get_type().name()?
        )))
    }
}

/// One function call from a dict `{"name": str, "arguments": str | dict | list}`.
fn call(d: &Bound<'_, PyAny>) -> PyResult<FunctionCall> {
    let d = d.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err("a function call is a dict {\"name\": str, \"arguments\": ...}")
    })?;
    let name: String = d
        .get_item("name")?
        .ok_or_else(|| PyTypeError::new_err("a function call needs a \"name\""))?
        .extract()
        .map_err(|_| PyTypeError::new_err("a function call's \"name\" is a str"))?;
    let arguments = match d.get_item("arguments")? {
        None => "{}".to_string(),
        Some(a) => match a.cast::<PyString>() {
            Ok(s) => s.to_str()?.to_string(),
            Err(_) => to_json(&a)?.to_string(),
        },
    };
    Ok(FunctionCall { name, arguments })
}

/// An action from its Python form (see the module docs).
pub fn action(v: &Bound<'_, PyAny>) -> PyResult<Action> {
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Action::text(s.to_str()?));
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(Action::Bytes {
            bytes: b.as_bytes().to_vec(),
        });
    }
    if v.is_instance_of::<PyDict>() {
        let c = call(v)?;
        return Ok(Action::call(c.name, c.arguments));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut calls = Vec::new();
        for x in v.try_iter()? {
            calls.push(call(&x?)?);
        }
        return Ok(match calls.len() {
            1 => {
                let c = calls.remove(0);
                Action::call(c.name, c.arguments)
            }
            _ => Action::Calls { calls },
        });
    }
    Err(PyTypeError::new_err(format!(
        "an action is a str, bytes, a function-call dict or a list of them, not {}",
        v.get_type().name()?
    )))
}

/// An action in its Python form.
pub fn action_to_py<'py>(py: Python<'py>, a: &Action) -> PyResult<Bound<'py, PyAny>> {
    let call = |name: &str, arguments: &str| -> PyResult<Bound<'py, PyAny>> {
        let d = PyDict::new(py);
        d.set_item("name", name)?;
        d.set_item("arguments", arguments)?;
        Ok(d.into_any())
    };
    match a {
        Action::Text { text } => Ok(PyString::new(py, text).into_any()),
        Action::Bytes { bytes } => Ok(PyBytes::new(py, bytes).into_any()),
        Action::Call { name, arguments } => call(name, arguments),
        Action::Calls { calls } => {
            let list = PyList::empty(py);
            for c in calls {
                list.append(call(&c.name, &c.arguments)?)?;
            }
            Ok(list.into_any())
        }
    }
}
