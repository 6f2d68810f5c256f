"""The web app's edge: one composition root (``app.create_app``) wiring the services once
(``wiring``), one router per area (``routes``), the socket loop, the guard, the one error
answer, and the one place that decides whether a request runs here or is forwarded
(``owner``).
"""
