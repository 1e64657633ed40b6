"""What goes to the host: the rgt package plus the user's plugin modules kept in the project."""

from __future__ import annotations

from rgt.config import load_config
from rgt.remote.deploy import file_digests, plugin_files, project_files, tree_hash

NET = "import torch\n\n\nclass Net(torch.nn.Sequential):\n    pass\n"


def user_model(project, tiny_config, name="mymodels.nets:Net"):
    """A project whose model is the user's own, in a package with a sibling module."""
    package = project / "mymodels"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "nets.py").write_text(NET)
    (package / "layers.py").write_text("WIDTH = 8\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "nets.cpython-311.pyc").write_bytes(b"\0")
    tiny_config["experiments"]["tiny"]["variants"]["mine"] = {"model": {"name": name}}
    return load_config(tiny_config)


def test_a_plugin_package_in_the_project_goes_whole(tmp_path, tiny_config):
    config = user_model(tmp_path, tiny_config)
    files = plugin_files(config, tmp_path)
    assert sorted(files) == ["src/mymodels/__init__.py", "src/mymodels/layers.py",
                             "src/mymodels/nets.py"]
    assert files["src/mymodels/nets.py"] == tmp_path / "mymodels" / "nets.py"


def test_a_src_layout_module_and_an_installed_plugin(tmp_path, tiny_config):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "solo.py").write_text(NET)
    tiny_config["defaults"]["model"]["name"] = "solo:Net"
    tiny_config["experiments"]["tiny"]["variants"]["lib"] = {"model": {"name": "json:JSONDecoder"}}
    files = plugin_files(load_config(tiny_config), tmp_path)
    assert files == {"src/solo.py": tmp_path / "src" / "solo.py"}  # json is the host's own


def test_built_in_names_ship_nothing_and_plugins_change_the_tree(tmp_path, tiny_config):
    assert plugin_files(load_config(dict(tiny_config)), tmp_path) == {}
    config = user_model(tmp_path, tiny_config)
    files = {**project_files(), **plugin_files(config, tmp_path)}
    before = tree_hash(file_digests(files))
    (tmp_path / "mymodels" / "layers.py").write_text("WIDTH = 16\n")
    assert tree_hash(file_digests(files)) != before
