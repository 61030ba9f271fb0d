"""Seed 002's Pylons page as plain WSGI + Mako (no Pylons or Pyramid): a search form rendered
from search.mako on every request, no database. `application` is the WSGI callable that every
set-up of ./run serves (Paste, and uwsgi over FastCGI or SCGI).

Run directly it is one Paste HTTP server with Paste's defaults (a pool of 10 threads):
    python3 app.py PORT
"""
import os
import sys
from urllib.parse import parse_qs

from mako.lookup import TemplateLookup

# Compiled once per process and kept in memory, as Pylons did with its templates.
_lookup = TemplateLookup(directories=[os.path.dirname(os.path.abspath(__file__))],
                         input_encoding="utf-8")


def application(environ, start_response):
    """Renders the search form (echoing the query ?q=..., if any)."""
    query = parse_qs(environ.get("QUERY_STRING", "")).get("q", [""])[0]
    body = _lookup.get_template("search.mako").render(title="Search", query=query)
    data = body.encode("utf-8")
    start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                              ("Content-Length", str(len(data)))])
    return [data]


if __name__ == "__main__":
    from paste import httpserver
    # Paste's defaults otherwise: thread pool of 10 workers, listen queue of 5.
    httpserver.serve(application, host="127.0.0.1", port=int(sys.argv[1]))
