"""The uvicorn runner refuses non-loopback hosts unless remote access is explicit."""

from __future__ import annotations

import pytest

from app.api.server import check_bind_host, free_port
from app.core.errors import ConfigError


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_hosts_need_no_flag(host):
    assert check_bind_host(host, allow_remote=False) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::"])
def test_remote_hosts_are_refused_without_the_flag(host):
    with pytest.raises(ConfigError, match="--allow-remote"):
        check_bind_host(host, allow_remote=False)
    warning = check_bind_host(host, allow_remote=True)
    assert warning and host in warning


def test_free_port_is_bindable():
    assert 0 < free_port() < 65536
