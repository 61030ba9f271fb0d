# The seed's framework hello-world (repoze.bfg's "helloworld") in Pyramid, bfg's successor: a
# configured application with one route and one view, answering the 5 bytes "hello".
from pyramid.config import Configurator
from pyramid.response import Response


def hello(request):
    return Response('hello', content_type='text/plain')


config = Configurator()
# Mounted at /helloworld by WSGIScriptAlias: the application sees the path below it, "/".
config.add_route('hello', '/')
config.add_view(hello, route_name='hello')
application = config.make_wsgi_app()
