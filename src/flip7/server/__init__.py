"""The web app: real-time multiplayer tables over FastAPI and WebSockets.

Needs the ``server`` extra (``pip install 'flip7[server]'``). The protocol is described in
``docs/protocol.md``; :func:`flip7.server.api.app.create_app` builds the ASGI application.
"""
