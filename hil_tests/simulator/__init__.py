"""The table simulator: a stand-in for an automatic table, its four players and its controller.

Test and demo equipment: only the `sim` and `demo` commands and the HIL suite load it.
It may use the rules engine and the protocol codec; the production bridge and service
never import it.
"""
