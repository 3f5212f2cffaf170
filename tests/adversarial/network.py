from ._snippets import SHA, solution_text

ASSIGNMENT = SHA
TAG = "network"
ATTACK = ("opens network sockets: TCP and UDP to a listener of the grader's machine (127.0.0.1), "
          "a public DNS server, a DNS lookup, a raw packet socket; then the correct solution")
CODE = solution_text(ASSIGNMENT) + '''
import socket

_outcomes = []


def _try(what, action):
    try:
        action()
        _outcomes.append(what + ": OK")
        print("ATTNKIT-LEAK network:", what)
    except Exception as exc:
        _outcomes.append(f"{what}: {type(exc).__name__}")


def _tcp():
    with socket.create_connection(("127.0.0.1", __PORT__), timeout=2) as conn:
        conn.sendall(b"__MARK__ tcp")


def _udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as conn:
        conn.sendto(b"__MARK__ udp", ("127.0.0.1", __PORT__))


def _outside():
    with socket.create_connection(("1.1.1.1", 53), timeout=2):
        pass


def _v6():
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as conn:
        conn.settimeout(2)
        conn.connect(("::1", __PORT__))


def _packet():
    socket.socket(socket.AF_PACKET, socket.SOCK_RAW)


_try("tcp to the grader's machine", _tcp)
_try("udp to the grader's machine", _udp)
_try("tcp to 1.1.1.1", _outside)
_try("tcp over ipv6", _v6)
_try("dns lookup", lambda: socket.getaddrinfo("pypi.org", 443))
_try("raw packets", _packet)
print("network attempts:", _outcomes)
'''
TWIN = solution_text(ASSIGNMENT)
EVIDENCE = "network attempts:"
SAME_SCORE = True
