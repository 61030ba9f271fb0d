# Seed 000's CherryPy application: a page that returns "OK" (2 bytes), or, in the static set-up,
# a static file served by CherryPy's own staticfile tool, as the seed's [staticContent] section.
#
# Usage: python3 app.py PORT THREADS LOGDIR NAME [STATIC_FILE]
#   THREADS      the server's thread pool (1: the seed's single-threaded server; 10: its pool)
#   LOGDIR/NAME  access and error logs go to LOGDIR/NAME-access.log and NAME-error.log
#   STATIC_FILE  when given, serve it at /static.html (absolute path)
import sys

import cherrypy


class Root:
    """The seed's app: index returns "OK"."""

    @cherrypy.expose
    def index(self):
        return "OK"


def main():
    port, threads, logdir, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    static = sys.argv[5] if len(sys.argv) > 5 else None
    cherrypy.config.update({
        # 127.0.0.1 only, on the port the script picked.
        "server.socket_host": "127.0.0.1",
        "server.socket_port": port,
        # A fixed pool: cheroot may otherwise grow it up to thread_pool_max.
        "server.thread_pool": threads,
        "server.thread_pool_max": threads,
        # CherryPy's default listen backlog is 5: whenever the accepting thread waits for the
        # GIL, a burst of open-loop arrivals overflows it and the client's SYN is retried after
        # 1 s, even at half the capacity. 1024 measures the server, not that default.
        "server.socket_queue_size": 1024,
        # "production": no autoreload, no config checker, no tracebacks; the run measures the
        # server, not the development tools. Logs to files, not to the terminal.
        "environment": "production",
        "log.screen": False,
        "log.access_file": "%s/%s-access.log" % (logdir, name),
        "log.error_file": "%s/%s-error.log" % (logdir, name),
    })
    config = {}
    if static:
        config["/static.html"] = {"tools.staticfile.on": True, "tools.staticfile.filename": static}
    cherrypy.tree.mount(Root(), "/", config)
    # The script stops the server by PID with SIGTERM; CherryPy's signal handler exits cleanly.
    cherrypy.engine.signals.subscribe()
    cherrypy.engine.start()
    cherrypy.engine.block()


if __name__ == "__main__":
    main()
