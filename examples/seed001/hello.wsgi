# The seed's "bare" WSGI application, as it was (a str body became bytes in Python 3).
def application(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain'),
                              ('Content-Length', '5')])
    return [b'hello']
