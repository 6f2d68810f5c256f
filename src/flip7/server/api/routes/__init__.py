"""The app's routes, one router per area; :func:`flip7.server.api.app.create_app` includes them."""
