"""How the outside reaches the service: HTTP (``paigow serve``), the command line, the
simulation, and the composition root that wires them (``bootstrap``)."""
