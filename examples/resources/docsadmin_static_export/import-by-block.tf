import {
  to = docsadmin_static_export.docs
  id = "docs.example.com/se_3f9a2c1b8e7d4a06"
}
