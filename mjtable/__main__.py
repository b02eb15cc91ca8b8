from mjtable.cli import main

raise SystemExit(main())
