"""The API's routes, a module per resource, each building a FastAPI router that
`create_app` (api.py) includes:

| module | routes |
|---|---|
| `tables.py` | GET /api/tables, /api/tables/{table}, /api/tables/{table}/referee: live state |
| `sessions.py` | /api/sessions…, POST /api/tables/{table}/session, …/session/end |
| `seats.py` | /api/tables/{table}/seats…: who sits where before the first shuffle, seat codes |
| `hands.py` | GET /api/tables/{table}/hands, /api/hands/{id}, /api/hands/{id}/events |
| `players.py` | /api/players…, /api/leaderboard, /api/players.csv |
| `referee.py` | violations (and decisions), faults, rulings (POST /api/tables/{table}/rulings) |
| `tokens.py` | /api/tokens… |
| `live.py` | GET /api/health, the WebSockets /api/ws and /api/tables/{table}/ws |
| `rules.py` | GET /api/vocabulary, /api/profiles |
| `pages.py` | /docs, /favicon.ico |

`common.py` holds what they share (parameter types, declared errors, the token
dependencies, `Backend`); `models.py` the bodies read and the answers given (the store's
rows aside).
"""
