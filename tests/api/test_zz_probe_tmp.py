"""Exploratory: every schemathesis check on every operation; prints failures grouped."""
import contextlib, time
from collections import Counter, defaultdict
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from app.api.app import create_app
from app.api.security import load_or_create_token
from app.api.server import BackgroundServer

def test_probe(services):
    token = load_or_create_token(services.layout.token_file)
    auth = {"Authorization": f"Bearer {token}"}
    fails = defaultdict(set)
    started = time.monotonic()
    with BackgroundServer(create_app(services)) as server:
        schema = schemathesis.openapi.from_url(f"{server.url}/api/openapi.json")
        for result in schema.get_all_operations():
            op = result.ok()
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                @given(case=op.as_strategy(mode))
                @settings(max_examples=15, deadline=None, database=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
                def ex(case):
                    try:
                        case.call_and_validate(headers=auth, timeout=30)
                    except BaseException as exc:
                        fails[f"{op.method.upper()} {op.path}"].add(f"{type(exc).__name__}: {str(exc)[:300]}")
                with contextlib.suppress(Unsatisfiable):
                    ex()
    for k, v in fails.items():
        print("==", k)
        for x in list(v)[:4]:
            print("   ", x.replace("\n", " | ")[:400])
    print("time", time.monotonic() - started)
