"""The table simulator, a product of its own: a stand-in for an automatic table (its
controller, wall, four players and the faults a real one has), the soak that drives
tables through the whole loop, the far end that judges what arrives against the
simulator's truth (`recorder.py`, `truth.py`, `service_end.py`), and the brokers it
starts (`broker.py`, `amqtt_broker.py`).

`mjtable demo`, `mjtable sim`, `link-test --sim`, the benchmarks and the tests use it. It
may use the rules engine, the protocol codec and the table service; the production
bridge and service never import it.
"""
