"""A `py:` model is keyed by its code: the answer cache never serves an edited function the old
function's answers, though the model's name (`py:mymod:answer`) stays the same."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from pathlib import Path

import pytest

from thoughtgraph.io.sources import source_digest
from thoughtgraph.models.imported import ImportedModel

from .conftest import run_cli

MODEL = """
CALLS = []


def answer(prompt):
    CALLS.append(prompt)
    return "{reply}"


class Batch:
    def complete(self, prompt, n=1):
        return ["{reply}"] * n


BATCH = Batch()
"""


@pytest.fixture
def name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # an edit is read, never a stale .pyc
    return f"digested_{tmp_path.name.replace('-', '_')}"


def write(name: str, reply: str) -> None:
    """The user's file, edited; imported afresh, as a new process would."""
    Path(f"{name}.py").write_text(MODEL.format(reply=reply))
    sys.modules.pop(name, None)


def solve(capsys, name: str) -> dict[str, object]:
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--scheme", "io", "--json",
        "--model", f"py:{name}:answer", "--cache", "answers.db", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    result: dict[str, object] = json.loads(out)
    return result


def test_an_edited_function_is_not_served_the_old_functions_cached_answer(capsys, name):
    write(name, "[3, 1, 2]")
    assert solve(capsys, name)["output"] == [3, 1, 2]
    write(name, "[1, 2, 3]")  # fixed
    assert solve(capsys, name)["output"] == [1, 2, 3]
    assert len(sys.modules[name].CALLS) == 1  # asked, not the cache's old answer
    write(name, "[1, 2, 3]")  # the same code again: its own answer is cached now
    assert solve(capsys, name)["output"] == [1, 2, 3] and sys.modules[name].CALLS == []


def test_a_py_models_code_is_among_its_settings(name):
    write(name, "a")
    before = ImportedModel.from_spec(f"{name}:answer", name).settings["code"]
    batch = ImportedModel.from_spec(f"{name}:BATCH", name).settings["code"]
    write(name, "a")
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] == before
    write(name, "b")
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] != before
    assert ImportedModel.from_spec(f"{name}:BATCH", name).settings["code"] != batch


def test_the_digest_is_of_what_defines_the_object():
    assert source_digest(json.dumps) == source_digest(json) == source_digest(json, json.dumps)
    assert source_digest(functools.partial(json.dumps, indent=1)) == source_digest(json.dumps)
    assert source_digest(json.JSONDecoder()) == source_digest(json.JSONDecoder)
    assert source_digest(json.dumps) != source_digest(functools.partial)
    assert source_digest(len) is None  # a builtin has no source to read


HELPED = """
import json

import {helper}
from {helper} import reply as REPLY

import thoughtgraph


def answer(prompt):
    return {helper}.reply()
"""


def write_helped(name: str, reply: str, deeper: str = "") -> str:
    """A model file that imports the user's helper module, which imports another of theirs."""
    helper, deepest = f"{name}_helper", f"{name}_deepest"
    Path(f"{deepest}.py").write_text(f"NOTE = {deeper!r}\n")
    Path(f"{helper}.py").write_text(f"import {deepest}\n\n\ndef reply():\n    return {reply!r}\n")
    Path(f"{name}.py").write_text(HELPED.format(helper=helper))
    for module in (name, helper, deepest):
        sys.modules.pop(module, None)
    return helper


def test_a_helper_module_the_users_code_imports_is_part_of_its_digest(capsys, name):
    write_helped(name, "[3, 1, 2]")
    assert solve(capsys, name)["output"] == [3, 1, 2]
    write_helped(name, "[1, 2, 3]")  # only the helper's file changed
    assert solve(capsys, name)["output"] == [1, 2, 3]  # asked again, not the cache's old answer


def test_the_users_modules_are_followed_through_theirs(name):
    write_helped(name, "a", deeper="one")
    before = ImportedModel.from_spec(f"{name}:answer", name).settings["code"]
    write_helped(name, "a", deeper="one")
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] == before
    write_helped(name, "a", deeper="two")  # a module the helper imports, two files away
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] != before


def test_installed_code_a_file_imports_is_no_part_of_its_digest(name):
    """json (the standard library), pytest (site-packages) and thoughtgraph are imported
    above, yet the digest is of this module's file and the helpers' alone."""
    import importlib

    helper = write_helped(name, "a")
    module = importlib.import_module(name)
    files = [Path(f"{stem}.py").read_bytes() for stem in (name, helper, f"{name}_deepest")]
    whole = hashlib.sha256()
    for part in sorted(hashlib.sha256(text).hexdigest() for text in files):
        whole.update(part.encode())
    assert source_digest(module) == source_digest(module.answer) == whole.hexdigest()[:16]


def test_a_helper_imported_inside_the_function_counts_before_it_is_ever_imported(name):
    """An import in the function's body has not run when the model is built: its file is found
    where the import would find it, without running it, so the digest is the same before the
    first call and after it."""
    lazy = f"{name}_lazy"
    Path(f"{name}.py").write_text(
        f"def answer(prompt):\n    import {lazy}\n\n    return {lazy}.REPLY\n"
    )
    Path(f"{lazy}.py").write_text("import pathlib\n\npathlib.Path('ran').touch()\nREPLY = 'a'\n")
    for module in (name, lazy):
        sys.modules.pop(module, None)
    before = ImportedModel.from_spec(f"{name}:answer", name).settings["code"]
    assert not Path("ran").exists()  # taking the digest ran none of the helper's code
    sys.modules[name].answer("p")
    assert Path("ran").exists() and lazy in sys.modules
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] == before
    Path(f"{lazy}.py").write_text("REPLY = 'b'\n")
    sys.modules.pop(lazy, None)
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] != before


def test_a_relative_import_inside_the_users_package_counts(name):
    package = Path(name)
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(
        "from .rules import REPLY\n\n\ndef answer(prompt):\n    return REPLY\n"
    )
    digests = []
    for reply in ("a", "a", "b"):
        (package / "rules.py").write_text(f"REPLY = {reply!r}\n")
        for module in (name, f"{name}.model", f"{name}.rules"):
            sys.modules.pop(module, None)
        target = f"{name}.model:answer"
        digests.append(ImportedModel.from_spec(target, target).settings["code"])
    assert digests[0] == digests[1] != digests[2]


class EditableFinder:
    """The hook `pip install -e` puts in `sys.meta_path` for a project not on the Python path
    (setuptools' `__editable___*_finder`): it maps the package's name to its folder."""

    def __init__(self, name: str, folder: Path) -> None:
        self.name, self.folder = name, folder

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        import importlib.util

        if name != self.name:
            return None
        init = self.folder / "__init__.py"
        return importlib.util.spec_from_file_location(
            name, init, submodule_search_locations=[str(self.folder)]
        )


def test_a_lazily_imported_package_of_an_editable_install_counts(name, tmp_path, monkeypatch):
    """The package is found through the install's hook, not the Python path: an edit of it
    changes the digest before the function first runs, and the digest is the same after."""
    project = f"{name}_project"
    folder = tmp_path / "elsewhere" / project
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, EditableFinder(project, folder)])
    Path(f"{name}.py").write_text(
        f"def answer(prompt):\n    from {project}.rules import REPLY\n\n    return REPLY\n"
    )
    digests = []
    for reply in ("a", "b"):
        (folder / "rules.py").write_text(f"REPLY = {reply!r}\n")
        for module in (name, project, f"{project}.rules"):
            sys.modules.pop(module, None)
        digests.append(ImportedModel.from_spec(f"{name}:answer", name).settings["code"])
    assert digests[0] != digests[1]
    assert sys.modules[name].answer("p") == "b"  # now imported: found in sys.modules
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] == digests[1]


def test_a_module_that_puts_an_object_in_its_place_is_read_from_its_file(name):
    """`sys.modules[__name__] = Settings()` leaves an object with no `__name__` nor `__file__`
    where the module was: the model is built, and the file it came from still counts."""
    shim = f"{name}_shim"
    Path(f"{name}.py").write_text(f"import {shim}\n\n\ndef answer(prompt):\n    return {shim}.R\n")
    digests = []
    for reply in ("a", "b"):
        Path(f"{shim}.py").write_text(
            "import sys\n\n\nclass Settings:\n"
            f"    R = {reply!r}\n\n\nsys.modules[__name__] = Settings()\n"
        )
        for module in (name, shim):
            sys.modules.pop(module, None)
        digests.append(ImportedModel.from_spec(f"{name}:answer", name).settings["code"])
    assert digests[0] != digests[1]
    assert sys.modules[name].answer("p") == "b"
