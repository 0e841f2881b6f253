"""The Kubernetes manifests (deploy/k8s): valid against the Kubernetes schemas (strict: an
unknown field is an error), and consistent with the server: the node's arguments parse with
``tienlen serve``'s own parser once the ConfigMap and Secret are filled in, the probes ask
the documented endpoints, the kubelet waits for the node's whole stop, and the selectors
find the pods."""

from __future__ import annotations

import argparse
import copy
import re
from pathlib import Path
from typing import Any

import pytest

from tienlen.apps import cmd_serve

kv = pytest.importorskip("kubernetes_validate")
yaml = pytest.importorskip("yaml")

K8S = Path(__file__).resolve().parent.parent / "deploy" / "k8s"
#: The oldest Kubernetes release still supported upstream when this was written, and the
#: newest the validator knows.
VERSIONS = ["1.32.0", kv.latest_version()]


def documents() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    return docs


DOCS = documents()


def the(kind: str, name: str | None = None) -> dict[str, Any]:
    found = [
        d for d in DOCS if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"one {kind} {name or ''}"
    return found[0]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("doc", DOCS, ids=lambda d: f"{d['kind']}-{d['metadata']['name']}")
def test_each_manifest_is_valid(doc: dict[str, Any], version: str) -> None:
    kv.validate(doc, version, strict=True)


def test_a_misspelt_field_is_caught() -> None:
    """The check is not vacuous: the schemas ship with the validator and are strict."""
    broken = copy.deepcopy(the("Deployment"))
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["paht"] = "/"
    with pytest.raises(kv.ValidationError):
        kv.validate(broken, VERSIONS[-1], strict=True)


def test_the_node_arguments_parse_with_the_settings_filled_in() -> None:
    container = the("Deployment")["spec"]["template"]["spec"]["containers"][0]
    env = {**the("ConfigMap")["data"], **the("Secret")["stringData"]}
    sources = {
        ref.get("configMapRef", ref.get("secretRef"))["name"] for ref in container["envFrom"]
    }
    assert sources == {the("ConfigMap")["metadata"]["name"], the("Secret")["metadata"]["name"]}

    def filled(arg: str) -> str:
        return re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], arg)

    assert container["command"] == ["tienlen", "serve"]
    parser = argparse.ArgumentParser()
    cmd_serve.register(parser.add_subparsers())
    args = parser.parse_args(["serve", *map(filled, container["args"])])
    assert cmd_serve._cluster_problem(args) is None
    settings = cmd_serve.settings_of(args)
    assert settings.redis_url == env["REDIS_URL"]
    assert settings.database_url == env["DATABASE_URL"]
    assert settings.port == container["ports"][0]["containerPort"]
    # The kubelet's SIGKILL comes only after the preStop pause and the node's own deadline.
    pod = the("Deployment")["spec"]["template"]["spec"]
    pause = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
    assert pod["terminationGracePeriodSeconds"] > pause + settings.stop_timeout


def test_probes_ask_health_for_liveness_and_ready_for_readiness() -> None:
    container = the("Deployment")["spec"]["template"]["spec"]["containers"][0]
    assert container["livenessProbe"]["httpGet"]["path"] == "/api/health"
    assert container["startupProbe"]["httpGet"]["path"] == "/api/health"
    assert container["readinessProbe"]["httpGet"]["path"] == "/api/ready"


def test_selectors_find_the_nodes() -> None:
    labels = the("Deployment")["spec"]["template"]["metadata"]["labels"]
    for selector in (
        the("Deployment")["spec"]["selector"]["matchLabels"],
        the("PodDisruptionBudget")["spec"]["selector"]["matchLabels"],
        the("Service", "tienlen")["spec"]["selector"],
    ):
        assert selector.items() <= labels.items()


def test_a_tables_sockets_are_hashed_on_their_path() -> None:
    """The table id is the whole path of a table's socket: hashing $uri (no query string)
    sends every socket of a table to one node."""
    sockets = the("Ingress", "tienlen-tables")
    assert sockets["metadata"]["annotations"]["nginx.ingress.kubernetes.io/upstream-hash-by"] == (
        "$uri"
    )
    paths = [p["path"] for rule in sockets["spec"]["rules"] for p in rule["http"]["paths"]]
    assert paths == ["/ws/tables/"]


def test_postgresql_and_redis_are_external_names() -> None:
    urls = the("Secret")["stringData"]
    for name, url in (
        ("tienlen-postgres", urls["DATABASE_URL"]),
        ("tienlen-redis", urls["REDIS_URL"]),
    ):
        assert the("Service", name)["spec"]["type"] == "ExternalName"
        assert f"@{name}:" in url or f"//{name}:" in url
