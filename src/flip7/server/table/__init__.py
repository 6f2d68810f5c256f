"""The live table, the game master: ``Table``, ``Lobby``, seats, typed changes and events,
presence and hand-over, turns and bots, chat, the tutorial, expiry, views. It sees storage
and clients only through the interfaces it declares (``storage.TableStorage``,
``table.Client``): no web framework, no database (tests/test_layers.py).
"""
